/**
 * @module web/intake/questions/voice
 * `voice` and `voice_text_fallback`: the recorder control ({@link recordWidget}) uploads to
 * `…/audio/?duration=<s>` as soon as recording stops, which happens by itself at `max_duration`
 * (default 120 s); with `live_transcription` a live transcript shows while it records. When the
 * microphone is unavailable and the question allows text (`voice_text_fallback`, or
 * `fallback_to_text` not false) a textarea labelled by the prompt replaces the recorder;
 * respondents may also switch to typing by choice. After a refused (or missing) microphone,
 * "Try the microphone again" asks for it once more and returns to recording when it is granted.
 */
import { h, uniqueId } from "../dom.ts";
import { canRecordAudio, hasMicrophone, MicrophoneUnavailableError, openMicrophone } from "../recorder.ts";
import { recordWidget } from "../record-widget.ts";
import { clock, t } from "../i18n.ts";
import { promptContent, labelledQuestion, type QuestionContext, type RenderedQuestion } from "./common.ts";
import { characterCounter, textArea } from "./text.ts";
import { askConsent, consentShown } from "../consent.ts";

const DEFAULT_MAX_DURATION_S = 120;
const DEFAULT_MAX_CHARACTERS = 1000;

/** Renders a `voice` or `voice_text_fallback` question. */
export function renderVoice({ question: q, state, api }: QuestionContext): RenderedQuestion {
  const allowsText = q.response_type === "voice_text_fallback" || q.fallback_to_text !== false;
  const maxS = q.configuration.max_duration ?? DEFAULT_MAX_DURATION_S;
  const maxChars = q.configuration.max_characters ?? DEFAULT_MAX_CHARACTERS;
  let micProblem: string | null = canRecordAudio() ? null : t("mic.unsupported");
  /** The respondent said "No, thanks" to recording (issue 25): typing is offered instead. */
  let declinedConsent = false;
  let control: HTMLElement;
  const root = h("div", { class: "question-slot-inner" });

  const widget = recordWidget({
    maxS,
    saved: Boolean(state.answer(q)?.has_audio),
    async upload(recording) {
      const sessionId = await state.ensureSession();
      state.applyAnswer(await api.uploadAudio(sessionId, q.uuid, recording.blob, recording.durationS));
    },
    idleText: () => micProblem ?? t("recorder.idle", { duration: clock(maxS) }),
    savedText: () => {
      const duration = state.answer(q)?.duration;
      return duration ? t("recorder.savedLength", { length: clock(duration) }) : t("recorder.saved");
    },
    onMicrophoneProblem(message) {
      micProblem = message;
      if (!allowsText) return t("mic.voiceOnly", { problem: message });
      showMode("text");
      return null;
    },
    onError: (message) => state.setError(q, message),
    track: (operation) => state.track(q, operation),
    liveUrl: state.link.settings.live_transcription ? () => api.liveUrl(state.sessionId ?? "", q.uuid) : undefined,
    prepareLive: async () => void (await state.ensureSession()),
    async beforeMicrophone() {
      const shown = state.needsRecordingConsent() ? consentShown(state.link) : null;
      if (!shown) return null;
      if (await askConsent(widget.element, shown.text)) {
        await state.giveConsent(shown.language);
        return null;
      }
      if (!allowsText) return t("consent.declined.voiceOnly");
      declinedConsent = true;
      showMode("text");
      control.focus();
      return false;
    },
  });

  const typedValue = state.value(q);
  let mode: "voice" | "text" =
    allowsText && (micProblem !== null || (widget.phase() !== "saved" && typeof typedValue === "string" && typedValue.trim() !== "")) ? "text" : "voice";

  function voiceView(): HTMLElement {
    const promptId = uniqueId("prompt");
    const switcher = allowsText ? h("button", { type: "button", class: "link-button", onclick: () => showMode("text") }, t("voice.typeInstead")) : null;
    return h(
      "div",
      { class: `question question-${q.response_type}`, role: "group", "aria-labelledby": promptId },
      h("p", { class: "prompt", id: promptId }, ...promptContent(q)),
      widget.element,
      switcher,
    );
  }

  /** Asks for the microphone again; when granted, back to recording. */
  async function retryMicrophone(hint: HTMLElement | null, retry: HTMLButtonElement): Promise<void> {
    retry.disabled = true;
    try {
      const stream = await openMicrophone();
      for (const track of stream.getTracks()) track.stop();
    } catch (err) {
      retry.disabled = false;
      const reason = err instanceof MicrophoneUnavailableError ? err.message : t("mic.failed");
      if (hint) hint.textContent = t("mic.retryHint", { problem: reason });
      return;
    }
    micProblem = null;
    showMode("voice");
    widget.update(t("mic.ready"));
    widget.button.focus();
  }

  function textView(): { element: HTMLElement; area: HTMLTextAreaElement } {
    const area = textArea(q, state, maxChars);
    const canRetry = micProblem !== null && canRecordAudio();
    const retry = canRetry ? h("button", { type: "button", class: "link-button" }, t("voice.retry")) : null;
    const back =
      micProblem === null ? h("button", { type: "button", class: "link-button", onclick: () => showMode("voice") }, t("voice.recordInstead")) : retry;
    const hint = micProblem ? t("mic.typeInstead", { problem: micProblem }) : declinedConsent ? t("consent.declined.text") : undefined;
    const note = state.answer(q)?.has_audio ? h("p", { class: "status" }, t("voice.keptRecording")) : null;
    const element = labelledQuestion(q, area, hint, characterCounter(area, maxChars), note, back);
    retry?.addEventListener("click", () => void retryMicrophone(element.querySelector(".hint"), retry));
    return { element, area };
  }

  function showMode(next: "voice" | "text"): void {
    mode = next;
    if (mode === "text") {
      const view = textView();
      control = view.area;
      root.replaceChildren(view.element);
    } else {
      control = widget.button;
      root.replaceChildren(voiceView());
      widget.update();
    }
  }

  showMode(mode);
  if (micProblem === null) {
    void hasMicrophone().then((present) => {
      if (present || micProblem !== null || widget.phase() !== "idle") return;
      micProblem = t("mic.notFound");
      if (!allowsText || mode !== "voice") return widget.update();
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
    settle: () => widget.settle(),
    dispose: () => widget.dispose(),
  };
}
