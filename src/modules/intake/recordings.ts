/**
 * @module intake/recordings
 * The bound on a respondent's recording (DESIGN §9): at most the question's `max_duration` + 2 s,
 * checked at upload from the container (WAV header; WebM/Ogg packet timestamps) and again by the
 * decoder, which never allocates more than that limit implies. Also turns the decoder's
 * refusals into problem+json for the endpoints that transcribe while the respondent waits.
 */
import { AudioDecodeError, AudioTooLongError } from "../../ai/audio-common.ts";
import type { InferenceClient } from "../../ai/inference-client.ts";
import { AppError } from "../../errors.ts";
import type { QuestionRow } from "../links/repository.ts";
import { questionRecordingLimitS } from "../links/recording-limit.ts";
import type { AnswerRow } from "../responses/repository.ts";
import type { StoredFollowUp } from "./probing.ts";

/** The AppError for a decoder refusal: 400 AUDIO_TOO_LONG, or 415 for audio it cannot read. */
export function recordingProblem(err: AudioDecodeError): AppError {
  if (err instanceof AudioTooLongError) {
    return new AppError(
      "AUDIO_TOO_LONG",
      `The recording is too long: this question accepts at most ${err.limitS} s (its max_duration + 2 s); this one runs at least ${err.durationS.toFixed(1)} s.`,
    );
  }
  return new AppError("UNSUPPORTED_MEDIA_TYPE", `The recording could not be decoded: ${err.reason}.`);
}

/**
 * Checks an uploaded recording against its question before it is stored (no decoding; a WAV is
 * read by the decoder's own parser, ai/wav-header).
 * @throws AppError AUDIO_TOO_LONG (longer than `max_duration` + 2 s), UNSUPPORTED_MEDIA_TYPE
 *   (a WAV the decoder would refuse: ambiguous chunks, another codec, a sample rate outside
 *   8–192 kHz, 0 / more than 8 channels)
 */
export async function checkRecordingUpload(bytes: Uint8Array, q: Pick<QuestionRow, "configuration">): Promise<void> {
  try {
    // The decoders (mediabunny, opus, the G.711 and ADPCM codecs) load at the first recording, not at every start.
    const { assertRecordingFits } = await import("../../ai/audio.ts");
    await assertRecordingFits(bytes, questionRecordingLimitS(q));
  } catch (err) {
    if (err instanceof AudioDecodeError) throw recordingProblem(err);
    throw err;
  }
}

/**
 * Transcribes a recording now ("live" priority: the respondent waits), bounded by the question, in
 * the link's language when it has one (`language`, BCP 47; issue 17).
 * @returns `{ text (trimmed), durationS }`
 * @throws AppError AUDIO_TOO_LONG or UNSUPPORTED_MEDIA_TYPE for recordings the decoder refuses;
 *   InferenceError LANGUAGE_UNSUPPORTED when the installed model is English-only and `language`
 *   is not English; InferenceError (500) when the worker fails otherwise
 */
export async function transcribeForRespondent(
  inference: Pick<InferenceClient, "transcribe">,
  bytes: Uint8Array,
  q: Pick<QuestionRow, "configuration">,
  language: string | null = null,
): Promise<{ text: string; durationS: number }> {
  try {
    const t = await inference.transcribe(bytes, { priority: "live", maxDurationS: questionRecordingLimitS(q), language });
    return { text: t.text.trim(), durationS: t.durationS };
  } catch (err) {
    if (err instanceof AudioDecodeError) throw recordingProblem(err);
    throw err;
  }
}

/**
 * What an answer's new recording (or new uploaded file) resets: everything derived from the bytes
 * it replaces — the typed or transcribed text, the transcript and its status, duration, language,
 * insights, custom fields and the follow-ups asked about the old answer (issue 22 item 3). Every
 * path that replaces an answer's blob writes this patch, then its own new columns over it.
 * @returns a patch for `answers` (the caller adds the new blob, mime/meta, status and `date_updated`)
 */
export function replacedBlobReset(): Partial<AnswerRow> {
  return {
    value: "null",
    text: null,
    transcription: null,
    transcription_status: "not_applicable",
    transcription_error: null,
    duration: null,
    language: null,
    ai_insights: null,
    analysis_engine: null,
    analysis_status: "not_applicable",
    follow_ups: "[]",
    custom_fields: "{}",
  };
}

/**
 * The blob keys a replaced answer leaves behind: its recording, its file and its follow-ups'
 * recordings — to delete once the replacement has committed.
 * @param previous the answer row before the replacement (undefined: nothing to delete)
 */
export function blobsOfAnswer(previous: Pick<AnswerRow, "audio_blob" | "file_blob" | "follow_ups"> | undefined): string[] {
  if (!previous) return [];
  const followUps = JSON.parse(previous.follow_ups) as StoredFollowUp[];
  return [previous.audio_blob, previous.file_blob, ...followUps.map((f) => f.audio_blob ?? null)].filter((k): k is string => typeof k === "string");
}
