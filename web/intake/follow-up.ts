/**
 * @module web/intake/follow-up
 * One follow-up question of dynamic probing (docs/intake.md "Dynamic probing"): a textarea
 * labelled by the follow-up question, saved with `PUT …/follow-ups/{index}/` when the
 * respondent presses Next, and for voice questions a recorder that posts to
 * `…/follow-ups/{index}/audio/` as soon as recording stops. The flow asks the server for the
 * next follow-up afterwards.
 */
import { askConsent, consentShown } from "./consent.ts";
import { h, uniqueId } from "./dom.ts";
import type { QuestionContext, RenderedQuestion } from "./questions/common.ts";
import { canRecordAudio } from "./recorder.ts";
import { recordWidget, type RecordWidget } from "./record-widget.ts";
import { respondentMessage } from "./messages.ts";
import { promptOf } from "./content.ts";
import { language, t } from "./i18n.ts";
import { isVoiceType } from "./state.ts";

const MAX_CHARACTERS = 5000;
const MAX_RECORDING_S = 120;

/** A follow-up on screen; `save` stores the typed answer (or checks the recording). */
export interface FollowUpView extends RenderedQuestion {
  /** Resolves with an error message, or null once the follow-up is answered. */
  save(): Promise<string | null>;
  /** Whether the follow-up holds an answer now (typed, recorded or stored): clears its error. */
  isSatisfied(): boolean;
}

/** Renders follow-up `followUp.index` of the context's question. */
export function renderFollowUp({ question: q, state, api }: QuestionContext, followUp: { index: number; question: string }): FollowUpView {
  const { index } = followUp;
  const stored = () => state.followUps(q)[index];
  const area = h("textarea", {
    id: uniqueId("follow-up"),
    rows: 3,
    maxlength: MAX_CHARACTERS,
    placeholder: t("question.typePlaceholder"),
    autocomplete: "off",
  });
  area.value = stored()?.has_audio ? "" : (stored()?.answer ?? "");
  let uploadError: string | null = null;

  let widget: RecordWidget | null = null;
  if (isVoiceType(q) && canRecordAudio()) {
    widget = recordWidget({
      maxS: q.configuration.max_duration ?? MAX_RECORDING_S,
      saved: Boolean(stored()?.has_audio),
      async upload(recording) {
        const result = await api.uploadFollowUpAudio(await state.ensureSession(), q.uuid, index, recording.blob);
        state.setFollowUps(q, result.follow_ups);
      },
      idleText: () => t("followUp.idle"),
      savedText: () => t("recorder.saved"),
      onMicrophoneProblem: (message) => t("followUp.typeBelow", { problem: message }),
      onError: (message) => (uploadError = message),
      track: (operation) => state.track(q, operation),
      liveUrl: state.link.settings.live_transcription ? () => api.liveUrl(state.sessionId ?? "", q.uuid) : undefined,
      prepareLive: async () => void (await state.ensureSession()),
      async beforeMicrophone() {
        const shown = state.needsRecordingConsent() ? consentShown(state.link) : null;
        if (!shown) return null;
        if (!(await askConsent(widget!.element, shown.text))) return t("consent.declined.text");
        await state.giveConsent(shown.language);
        return null;
      },
    });
  }

  const element = h(
    "div",
    { class: `question question-follow-up question-${q.response_type}` },
    h("p", { class: "follow-up-context" }, t("followUp.context", { prompt: promptOf(q, language()) })),
    h("label", { class: "prompt", for: area.id }, followUp.question),
    widget?.element,
    area,
  );

  return {
    element,
    control: area,
    async save() {
      await widget?.settle();
      const text = area.value.trim();
      if (!text) {
        if (widget?.phase() === "error") return uploadError ?? t("recorder.saveFailed");
        return stored()?.answer !== null && stored()?.answer !== undefined ? null : t("followUp.required");
      }
      if (text === stored()?.answer) return null;
      try {
        const result = await api.answerFollowUp(await state.ensureSession(), q.uuid, index, text);
        state.setFollowUps(q, result.follow_ups);
        return null;
      } catch (err) {
        return respondentMessage(err, { question: { ...q, response_type: "text", configuration: { max_characters: MAX_CHARACTERS } } });
      }
    },
    isSatisfied: () => area.value.trim() !== "" || widget?.phase() === "saved" || (stored()?.answer ?? null) !== null,
    settle: async () => widget?.settle(),
    dispose: () => widget?.dispose(),
  };
}
