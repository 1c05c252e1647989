/**
 * @module web/intake/questions/voice
 * `voice` and `voice_text_fallback`: one button records, stops and records again (its name holds
 * "Record" or "Stop"), a status line announces the state, and recording stops by itself at
 * `max_duration` (default 120 s). The recording is uploaded to `…/audio/?duration=<s>` as soon as
 * it stops. When the microphone is unavailable and the question allows text
 * (`voice_text_fallback`, or `fallback_to_text` not false) a textarea labelled by the prompt
 * replaces the recorder; respondents may also switch to typing by choice.
 */
import { h, uniqueId } from "../dom.ts";
import { canRecordAudio, hasMicrophone, MicrophoneUnavailableError, openMicrophone, VoiceRecorder, type Recording } from "../recorder.ts";
import { errorMessage } from "../state.ts";
import { promptContent, labelledQuestion, type QuestionContext, type RenderedQuestion } from "./common.ts";
import { characterCounter, textArea } from "./text.ts";

const DEFAULT_MAX_DURATION_S = 120;
const DEFAULT_MAX_CHARACTERS = 1000;
const TICK_MS = 200;

type Phase = "idle" | "requesting" | "recording" | "uploading" | "saved" | "error";

/** `75` → `1:15`. */
function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** Renders a `voice` or `voice_text_fallback` question. */
export function renderVoice({ question: q, state, api }: QuestionContext): RenderedQuestion {
  const allowsText = q.response_type === "voice_text_fallback" || q.fallback_to_text !== false;
  const maxS = q.configuration.max_duration ?? DEFAULT_MAX_DURATION_S;
  const maxChars = q.configuration.max_characters ?? DEFAULT_MAX_CHARACTERS;
  let micProblem: string | null = canRecordAudio() ? null : "This browser cannot record audio.";
  let phase: Phase = state.answer(q)?.has_audio ? "saved" : "idle";
  let recorder: VoiceRecorder | null = null;
  let pending: Promise<void> | null = null;
  let ticker: ReturnType<typeof setInterval> | undefined;
  let previewUrl: string | null = null;
  let control: HTMLElement;
  const root = h("div", { class: "question-slot-inner" });

  const typedValue = state.value(q);
  let mode: "voice" | "text" =
    allowsText && (micProblem !== null || (phase !== "saved" && typeof typedValue === "string" && typedValue.trim() !== ""))
      ? "text"
      : "voice";

  // Recorder widgets, kept across state changes so focus stays on the button.
  const promptId = uniqueId("prompt");
  const button = h("button", { type: "button", class: "record-button" });
  const timer = h("span", { class: "record-timer", "aria-hidden": "true" });
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const preview = h("audio", { class: "record-preview", controls: true, preload: "metadata" });

  function update(message?: string): void {
    root.dataset.phase = phase;
    button.disabled = phase === "requesting" || phase === "uploading";
    button.classList.toggle("is-recording", phase === "recording");
    button.textContent = phase === "recording" ? "Stop recording" : phase === "saved" || phase === "error" ? "Record again" : "Record answer";
    const elapsed = recorder?.elapsedS() ?? state.answer(q)?.duration ?? 0;
    timer.textContent = phase === "recording" ? `${clock(elapsed)} / ${clock(maxS)}` : "";
    const saved = state.answer(q);
    status.textContent =
      message ??
      {
        idle: micProblem ?? `Press Record and speak. Up to ${clock(maxS)}.`,
        requesting: "Waiting for the microphone…",
        recording: "Recording… press Stop when you are done.",
        uploading: "Saving your recording…",
        saved: `Recording saved${saved?.duration ? ` (${clock(saved.duration)})` : ""}.`,
        error: state.errorFor(q) ?? "The recording could not be saved.",
      }[phase];
    preview.hidden = !(phase === "saved" && previewUrl);
  }

  async function upload(recording: Recording): Promise<void> {
    recorder = null;
    clearInterval(ticker);
    if (recording.blob.size === 0) {
      phase = "error";
      state.setError(q, "Nothing was recorded. Please try again.");
      return update();
    }
    phase = "uploading";
    update();
    try {
      const answer = await api.uploadAudio(state.sessionId, q.uuid, recording.blob, recording.durationS);
      state.applyAnswer(answer);
      if (previewUrl) URL.revokeObjectURL(previewUrl);
      previewUrl = URL.createObjectURL(recording.blob);
      preview.src = previewUrl;
      phase = "saved";
    } catch (err) {
      state.setError(q, errorMessage(err));
      phase = "error";
    }
    update();
  }

  async function start(): Promise<void> {
    state.setError(q, null);
    phase = "requesting";
    update();
    let stream: MediaStream;
    try {
      stream = await openMicrophone();
    } catch (err) {
      micProblem = err instanceof MicrophoneUnavailableError ? err.message : "The microphone could not be opened.";
      phase = "idle";
      if (allowsText) return showMode("text");
      return update(`${micProblem} This question needs a voice answer: allow the microphone and press Record again.`);
    }
    try {
      recorder = new VoiceRecorder(stream, maxS);
    } catch {
      for (const track of stream.getTracks()) track.stop();
      micProblem = "This browser cannot record audio.";
      phase = "idle";
      return allowsText ? showMode("text") : update();
    }
    phase = "recording";
    ticker = setInterval(() => update(), TICK_MS);
    update();
    pending = recorder.done().then(upload, () => {
      recorder = null;
      clearInterval(ticker);
      phase = "error";
      state.setError(q, "Recording failed. Please try again.");
      update();
    });
    state.track(q, pending);
  }

  button.addEventListener("click", () => {
    if (phase === "recording") void recorder?.stop();
    else void start();
  });

  function voiceView(): HTMLElement {
    const switcher = allowsText
      ? h("button", { type: "button", class: "link-button", onclick: () => showMode("text") }, "Type your answer instead")
      : null;
    return h(
      "div",
      { class: `question question-${q.response_type}`, role: "group", "aria-labelledby": promptId },
      h("p", { class: "prompt", id: promptId }, ...promptContent(q)),
      h("div", { class: "recorder" }, button, h("span", { class: "record-dot", "aria-hidden": "true" }), timer),
      status,
      preview,
      switcher,
    );
  }

  function textView(): { element: HTMLElement; area: HTMLTextAreaElement } {
    const area = textArea(q, state, maxChars);
    const back = micProblem === null
      ? h("button", { type: "button", class: "link-button", onclick: () => showMode("voice") }, "Record instead")
      : null;
    const hint = micProblem ? `${micProblem} You can type your answer instead.` : undefined;
    const note = state.answer(q)?.has_audio ? h("p", { class: "status" }, "Your recording is kept as well.") : null;
    return { element: labelledQuestion(q, area, hint, characterCounter(area, maxChars), note, back), area };
  }

  function showMode(next: "voice" | "text"): void {
    mode = next;
    if (mode === "text") {
      const view = textView();
      control = view.area;
      root.replaceChildren(view.element);
    } else {
      control = button;
      root.replaceChildren(voiceView());
      update();
    }
  }

  showMode(mode);
  if (micProblem === null) {
    void hasMicrophone().then((present) => {
      if (present || micProblem !== null || phase !== "idle") return;
      micProblem = "No microphone was found.";
      if (!allowsText || mode !== "voice") return update();
      const hadFocus = root.contains(document.activeElement);
      showMode("text");
      if (hadFocus) control.focus();
    });
  }
  return {
    element: root,
    get control() {
      return control;
    },
    async settle() {
      if (recorder?.isRecording()) void recorder.stop();
      await pending;
    },
    dispose() {
      if (recorder?.isRecording()) void recorder.stop();
      clearInterval(ticker);
      if (previewUrl) URL.revokeObjectURL(previewUrl);
    },
  };
}
