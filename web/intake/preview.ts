/**
 * @module web/intake/preview
 * Preview mode of the intake page (`?preview=1`, opened by the console's link builder; docs/
 * console.md "Preview"): the same page and flow, but an {@link IntakeApi} that keeps everything
 * in this tab and sends nothing: no session, answer, recording or file reaches the server, so a
 * preview never creates a response. Probing asks no follow-up; recordings are not transcribed.
 */
import type { IntakeApi } from "./api.ts";
import type { AnswerState, PublicLink, Session } from "./types.ts";

/** True when the page was opened as a preview. */
export function isPreview(): boolean {
  return new URLSearchParams(location.search).get("preview") === "1";
}

/** An in-memory intake API for `link`: every call answers as the server would, recording nothing. */
export function createPreviewApi(link: PublicLink): IntakeApi {
  const sessions = new Map<string, Session>();
  const fieldKey = (q: string) => link.questions.find((x) => x.uuid === q)?.field_key ?? q;
  const state = (q: string, patch: Partial<AnswerState>): AnswerState => ({
    question_uuid: q,
    field_key: fieldKey(q),
    value: null,
    text: null,
    has_audio: false,
    duration: null,
    transcription_status: "not_applicable",
    transcription: null,
    follow_ups: [],
    ...patch,
  });
  const store = (id: string, a: AnswerState): AnswerState => {
    const s = sessions.get(id);
    if (s) s.answers[a.question_uuid] = a;
    return a;
  };
  return {
    getLink: async () => ({ link }),
    startSession: async () => {
      const id = `preview-${crypto.randomUUID()}`;
      const s: Session = { session_id: id, response_uuid: id, status: "started", consent: null, answers: {} };
      sessions.set(id, s);
      return s;
    },
    getSession: async (id) => sessions.get(id) ?? { session_id: id, response_uuid: id, status: "started", answers: {} },
    saveAnswer: async (id, q, value) => store(id, state(q, { value, text: typeof value === "string" ? value : null })),
    uploadAudio: async (id, q, _audio, durationS) => store(id, state(q, { has_audio: true, duration: durationS, transcription_status: "pending" })),
    uploadFile: async (id, q, file) => store(id, state(q, { value: file.name, file: { name: file.name, size: file.size, content_type: file.type } })),
    submit: async (id) => {
      const s = sessions.get(id);
      if (s) s.status = "completed";
      return { status: "completed", thank_you_message: link.settings.thankYouMessage, redirect_url: null };
    },
    probe: async () => ({ clarity: null, follow_up: null, follow_ups: [] }),
    answerFollowUp: async () => ({ follow_ups: [] }),
    uploadFollowUpAudio: async () => ({ follow_ups: [] }),
    // main.ts turns live transcription off in preview, so this is never asked.
    giveConsent: async () => ({ given_at: new Date().toISOString(), text_sha256: "" }),
    liveUrl: () => {
      throw new Error("Live transcription is off in preview.");
    },
  };
}
