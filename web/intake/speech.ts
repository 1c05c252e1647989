/**
 * @module web/intake/speech
 * Reads prompts aloud when the link's `tts_enabled` is set (spec "Settings"). Browsers without
 * speech synthesis, or without voices (headless Chromium), are ignored silently.
 */

/** Speaks `text`, cancelling anything still being spoken. Never throws. */
export function speakPrompt(text: string): void {
  try {
    if (typeof window.speechSynthesis === "undefined" || typeof SpeechSynthesisUtterance === "undefined") return;
    window.speechSynthesis.cancel();
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = document.documentElement.lang; // the page's language (issue 17)
    window.speechSynthesis.speak(utterance);
  } catch {
    // Reading aloud is a convenience; the prompt is on screen anyway.
  }
}

/** Stops any prompt being read. Never throws. */
export function stopSpeaking(): void {
  try {
    window.speechSynthesis?.cancel();
  } catch {
    // Nothing to stop.
  }
}
