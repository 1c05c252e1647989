/**
 * @module intake/probing
 * Dynamic probing during a session (DESIGN §9; spec: `enable_dynamic_probing`,
 * `evaluator_config`): after an answer, the page asks for a follow-up; the answer (typed, or a
 * recording transcribed now with "live" priority) is analysed, and when its clarity is below
 * `clarity_threshold` a follow-up question is added to the answer's `follow_ups`, up to
 * `max_follow_ups`. The respondent answers it by text or voice.
 *
 * Nothing here changes an answer of a submitted response: every write happens in a transaction
 * that first checks the response is still `started` (else 409 ALREADY_SUBMITTED), so a probe or
 * follow-up racing `submit/` either lands before the submit (which then sees it) or not at all.
 *
 * Costs are bounded (security review finding 12): a probe that would transcribe or analyse counts
 * against the session's {@link SESSION_PROBES_PER_MINUTE}; parallel probes of one recording share
 * one transcription; a transcript, even an empty one, is stored as done and never redone.
 */
import type { Kysely, Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import type { BlobStore } from "../../blobs/store.ts";
import { InferenceError, type InferenceClient } from "../../ai/inference-client.ts";
import type { Logger } from "../../logger.ts";
import * as responsesRepo from "../responses/repository.ts";
import type { IntakeLink } from "./intake-link.ts";
import { assertAccepting } from "./closing.ts";
import { transcribeForRespondent } from "./recordings.ts";
import type { IntakeLimiter } from "./limits.ts";
import type { FollowUp } from "./model.ts";
import { maskText, redactionPolicyOf } from "../responses/redaction.ts";

export type ProbingDeps = {
  db: Kysely<Database>;
  blobs: BlobStore;
  inference: Pick<InferenceClient, "transcribe" | "analyse">;
  log?: Logger;
  /** Counts probes that transcribe or analyse (the app's intake limiter); none in unit tests. */
  limiter?: Pick<IntakeLimiter, "takeProbe">;
};

type Transcript = { text: string; durationS: number };
/** Probe transcriptions in flight, by answer uuid and recording blob: parallel probes share one. */
const transcribing = new Map<string, Promise<Transcript>>();

/** The link's `settings.language` (BCP 47), or null: transcription and follow-ups use it (issue 17). */
function linkLanguage(l: IntakeLink): string | null {
  const language = (JSON.parse(l.link.settings) as { language?: unknown }).language;
  return typeof language === "string" && language !== "" ? language : null;
}

/** {@link transcribeForRespondent}, shared by every probe of the same recording while it runs. */
function transcribeOnce(
  deps: ProbingDeps,
  key: string,
  audio: Uint8Array,
  q: Parameters<typeof transcribeForRespondent>[2],
  language: string | null,
): Promise<Transcript> {
  let running = transcribing.get(key);
  if (!running) {
    running = transcribeForRespondent(deps.inference, audio, q, language).finally(() => transcribing.delete(key));
    transcribing.set(key, running);
  }
  return running;
}

/**
 * A follow-up as stored in `answers.follow_ups` (the blob key never leaves the server);
 * `duration_s`: the recording's length (spoken answers since issue 24: a theme quote of it plays 0..duration).
 */
export type StoredFollowUp = {
  question: string;
  answer: string | null;
  transcription?: string | null;
  audio_blob?: string | null;
  duration_s?: number | null;
};

const DEFAULT_MAX_FOLLOW_UPS = 1;

async function openAnswer(db: Kysely<Database>, l: IntakeLink, sessionId: string, questionUuid: string) {
  assertAccepting(l.link);
  const r = await responsesRepo.findResponseBySession(db, sessionId);
  if (!r || r.link_uuid !== l.link.uuid) throw notFound("Session");
  if (r.status === "completed") throw new AppError("ALREADY_SUBMITTED", "This response was already submitted.");
  const q = l.questions.find((x) => x.uuid === questionUuid);
  if (!q) throw notFound("Question");
  const a = await responsesRepo.findAnswerOf(db, r.uuid, q.uuid);
  if (!a) throw new AppError("VALIDATION_ERROR", "Answer the question before asking for a follow-up.");
  return { r, q, a };
}

/**
 * Runs `write` in a transaction after checking, inside it, that the response is not submitted.
 * @throws AppError ALREADY_SUBMITTED (nothing is written)
 */
async function writeWhileOpen<T>(db: Kysely<Database>, responseUuid: string, write: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const r = await responsesRepo.findResponseByUuid(trx, responseUuid);
    if (!r || r.status === "completed") throw new AppError("ALREADY_SUBMITTED", "This response was already submitted; its answers can no longer change.");
    return write(trx);
  });
}

/** Public view of follow-ups (no blob keys). */
export function publicFollowUps(stored: StoredFollowUp[]): FollowUp[] {
  return stored.map((f) => ({ question: f.question, answer: f.answer, transcription: f.transcription ?? null, has_audio: Boolean(f.audio_blob) }));
}

/**
 * Asks for the next follow-up of an answer (`POST …/answers/{question_uuid}/probe/`).
 * @returns `{ clarity (0..1), follow_up: { index, question } | null, follow_ups }`; `null` when
 *   probing is off, the answer is clear enough, the last follow-up is unanswered,
 *   `max_follow_ups` were asked, or a recording cannot be transcribed because the ASR model is
 *   not installed (logged), or the answer (an empty transcript) has nothing to analyse
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED (also when submitted meanwhile),
 *   VALIDATION_ERROR (no answer yet), AUDIO_TOO_LONG, UNSUPPORTED_MEDIA_TYPE (undecodable recording),
 *   RATE_LIMITED (past the session's probes a minute)
 */
export async function probeAnswer(deps: ProbingDeps, l: IntakeLink, sessionId: string, questionUuid: string) {
  const { r, q, a } = await openAnswer(deps.db, l, sessionId, questionUuid);
  const stored = JSON.parse(a.follow_ups) as StoredFollowUp[];
  const evaluator = JSON.parse(q.evaluator_config) as { clarity_threshold?: number; max_follow_ups?: number; custom_fields?: string[] };
  const max = evaluator.max_follow_ups ?? DEFAULT_MAX_FOLLOW_UPS;
  const done = { clarity: null as number | null, follow_up: null as { index: number; question: string } | null, follow_ups: publicFollowUps(stored) };
  if (q.enable_dynamic_probing !== 1 || stored.length >= max || stored.some((f) => f.answer === null)) return done;
  let text = a.text ?? a.transcription;
  const transcribed = a.transcription_status === "completed"; // an empty transcript included
  deps.limiter?.takeProbe(sessionId);
  if (!text && !transcribed && a.audio_blob) {
    // Transcribe now, ahead of batch work: the respondent is waiting.
    const audio = await deps.blobs.get(a.audio_blob);
    if (!audio) return done;
    let t: Transcript;
    try {
      t = await transcribeOnce(deps, `${a.uuid} ${a.audio_blob}`, audio, q, linkLanguage(l));
    } catch (err) {
      // No ASR model (issue 12), or an English-only one on another language's link (issue 17):
      // no follow-up, never a 500; the recording is transcribed (or refused with why) later.
      if (!(err instanceof InferenceError && (err.code === "MODEL_MISSING" || err.code === "LANGUAGE_UNSUPPORTED"))) throw err;
      const why =
        err.code === "MODEL_MISSING" ? "the speech recognition model is not installed" : "the installed speech model does not know the link's language";
      deps.log?.warn(`probe without follow-up: ${why}`, { answer_uuid: a.uuid, error: err.message });
      return done;
    }
    // The transcript is masked before it is stored or analysed (issue 25): the follow-up question
    // is derived from what is stored, and the stored-text check below compares with it.
    const masked = maskText(t.text, redactionPolicyOf(l.link.settings));
    text = masked;
    await writeWhileOpen(deps.db, r.uuid, async (trx) => {
      const current = await responsesRepo.findAnswer(trx, a.uuid);
      if (current?.audio_blob !== a.audio_blob) return; // re-recorded meanwhile: not this transcript
      await responsesRepo.updateAnswer(trx, a.uuid, {
        transcription: masked,
        transcription_status: "completed",
        text: masked,
        duration: Math.round(t.durationS * 1000) / 1000,
        date_updated: nowIso(),
      });
    });
  }
  const combined = [text ?? "", ...stored.map((f) => f.answer ?? "")].join("\n").trim();
  if (!combined) return done; // an empty transcript: nothing to ask about
  let result: Awaited<ReturnType<ProbingDeps["inference"]["analyse"]>>;
  try {
    // In the link's language: an engine that does not know it asks nothing, rather than asking
    // an English follow-up on, say, a German page (issue 17).
    result = await deps.inference.analyse(
      combined,
      { evaluatorConfig: evaluator, enableDynamicProbing: true, prompt: q.prompt },
      { priority: "live", language: linkLanguage(l) },
    );
  } catch (err) {
    if (!(err instanceof InferenceError && err.code === "LANGUAGE_UNSUPPORTED")) throw err;
    deps.log?.info("probe without follow-up: no installed insights engine knows the link's language", { answer_uuid: a.uuid, language: linkLanguage(l) });
    return done;
  }
  const question = result.follow_up_questions.find((fq) => !stored.some((f) => f.question === fq));
  if (!question) return { ...done, clarity: result.clarity };
  const next: StoredFollowUp[] = [...stored, { question, answer: null }];
  const written = await writeWhileOpen(deps.db, r.uuid, async (trx) => {
    // The answer may have been re-recorded, re-typed or followed up while it was analysed: a
    // follow-up about what it no longer says is not asked (issue 22 item 3).
    const current = await responsesRepo.findAnswer(trx, a.uuid);
    if (!current || current.audio_blob !== a.audio_blob || current.follow_ups !== a.follow_ups || (current.text ?? current.transcription) !== text) {
      return current ? publicFollowUps(JSON.parse(current.follow_ups) as StoredFollowUp[]) : [];
    }
    await responsesRepo.updateAnswer(trx, a.uuid, { follow_ups: JSON.stringify(next), date_updated: nowIso() });
    return null;
  });
  if (written) return { clarity: null, follow_up: null, follow_ups: written };
  return { clarity: result.clarity, follow_up: { index: stored.length, question }, follow_ups: publicFollowUps(next) };
}

/**
 * Saves the respondent's answer to follow-up `index`, typed (`text`) or recorded (`audio`, which
 * is transcribed now with "live" priority).
 * @throws AppError NOT_FOUND (no such follow-up), VALIDATION_ERROR (empty or over 5000 characters),
 *   ALREADY_SUBMITTED (also when the response was submitted while the recording was transcribed),
 *   AUDIO_TOO_LONG, UNSUPPORTED_MEDIA_TYPE (undecodable recording)
 */
export async function answerFollowUp(
  deps: ProbingDeps,
  l: IntakeLink,
  sessionId: string,
  questionUuid: string,
  index: number,
  input: { text: string } | { audio: Uint8Array },
) {
  const { r, q, a } = await openAnswer(deps.db, l, sessionId, questionUuid);
  const target = (JSON.parse(a.follow_ups) as StoredFollowUp[])[index];
  if (!target) throw notFound("Follow-up");
  let updated: StoredFollowUp;
  // Typed or transcribed, the follow-up answer is masked before it is stored (issue 25).
  const policy = redactionPolicyOf(l.link.settings);
  if ("text" in input) {
    const text = input.text.trim();
    if (!text || text.length > 5000)
      throw new AppError("VALIDATION_ERROR", "Answer with 1 to 5000 characters.", { errors: [{ pointer: "/value", message: "1 to 5000 characters." }] });
    updated = { question: target.question, answer: maskText(text, policy), transcription: null, audio_blob: null };
  } else {
    const t = await transcribeForRespondent(deps.inference, input.audio, q, linkLanguage(l));
    const masked = maskText(t.text, policy);
    const key = await deps.blobs.put("audio", input.audio);
    updated = { question: target.question, answer: masked, transcription: masked, audio_blob: key, duration_s: t.durationS };
  }
  let replaced: string | null | undefined;
  let next: StoredFollowUp[];
  try {
    // Re-read inside the transaction: the answer may have changed while the recording was transcribed.
    next = await writeWhileOpen(deps.db, r.uuid, async (trx) => {
      const current = await responsesRepo.findAnswer(trx, a.uuid);
      const stored = JSON.parse(current?.follow_ups ?? "[]") as StoredFollowUp[];
      if (!current || stored[index]?.question !== target.question) throw notFound("Follow-up");
      replaced = stored[index]!.audio_blob;
      const list = stored.map((f, i) => (i === index ? updated : f));
      await responsesRepo.updateAnswer(trx, a.uuid, { follow_ups: JSON.stringify(list), date_updated: nowIso() });
      return list;
    });
  } catch (err) {
    if (updated.audio_blob) await deps.blobs.delete(updated.audio_blob);
    throw err;
  }
  if (replaced) await deps.blobs.delete(replaced);
  return { follow_ups: publicFollowUps(next) };
}
