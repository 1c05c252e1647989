/**
 * @module intake/probing
 * Dynamic probing during a session (DESIGN §9; spec: `enable_dynamic_probing`,
 * `evaluator_config`): after an answer, the page asks for a follow-up; the answer (typed, or a
 * recording transcribed now with "live" priority) is analysed, and when its clarity is below
 * `clarity_threshold` a follow-up question is added to the answer's `follow_ups`, up to
 * `max_follow_ups`. The respondent answers it by text or voice.
 */
import type { Kysely } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import type { BlobStore } from "../../blobs/store.ts";
import type { InferenceClient } from "../../ai/inference-client.ts";
import * as responsesRepo from "../responses/repository.ts";
import type { IntakeLink } from "./service.ts";

export type ProbingDeps = { db: Kysely<Database>; blobs: BlobStore; inference: Pick<InferenceClient, "transcribe" | "analyse"> };

/** A follow-up as stored in `answers.follow_ups` (the blob key never leaves the server). */
export type StoredFollowUp = { question: string; answer: string | null; transcription?: string | null; audio_blob?: string | null };

const DEFAULT_MAX_FOLLOW_UPS = 1;

async function openAnswer(db: Kysely<Database>, l: IntakeLink, sessionId: string, questionUuid: string) {
  if (l.link.status !== "active") throw new AppError("LINK_PAUSED", "This link is not accepting responses.");
  const r = await responsesRepo.findResponseBySession(db, sessionId);
  if (!r || r.link_uuid !== l.link.uuid) throw notFound("Session");
  if (r.status === "completed") throw new AppError("ALREADY_SUBMITTED", "This response was already submitted.");
  const q = l.questions.find((x) => x.uuid === questionUuid);
  if (!q) throw notFound("Question");
  const a = await responsesRepo.findAnswerOf(db, r.uuid, q.uuid);
  if (!a) throw new AppError("VALIDATION_ERROR", "Answer the question before asking for a follow-up.");
  return { r, q, a };
}

/** Public view of follow-ups (no blob keys). */
export function publicFollowUps(stored: StoredFollowUp[]) {
  return stored.map((f) => ({ question: f.question, answer: f.answer, transcription: f.transcription ?? null, has_audio: Boolean(f.audio_blob) }));
}

/**
 * Asks for the next follow-up of an answer (`POST …/answers/{question_uuid}/probe/`).
 * @returns `{ clarity (0..1), follow_up: { index, question } | null, follow_ups }`; `null` when
 *   probing is off, the answer is clear enough, the last follow-up is unanswered, or
 *   `max_follow_ups` were asked
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR (no answer yet)
 */
export async function probeAnswer(deps: ProbingDeps, l: IntakeLink, sessionId: string, questionUuid: string) {
  const { q, a } = await openAnswer(deps.db, l, sessionId, questionUuid);
  const stored = JSON.parse(a.follow_ups) as StoredFollowUp[];
  const evaluator = JSON.parse(q.evaluator_config) as { clarity_threshold?: number; max_follow_ups?: number; custom_fields?: string[] };
  const max = evaluator.max_follow_ups ?? DEFAULT_MAX_FOLLOW_UPS;
  const done = { clarity: null as number | null, follow_up: null as { index: number; question: string } | null, follow_ups: publicFollowUps(stored) };
  if (q.enable_dynamic_probing !== 1 || stored.length >= max || stored.some((f) => f.answer === null)) return done;
  let text = a.text ?? a.transcription;
  if (!text && a.audio_blob) {
    // Transcribe now, ahead of batch work: the respondent is waiting.
    const audio = await deps.blobs.get(a.audio_blob);
    if (!audio) return done;
    const t = await deps.inference.transcribe(audio, { priority: "live" });
    text = t.text.trim();
    await responsesRepo.updateAnswer(deps.db, a.uuid, {
      transcription: text,
      transcription_status: "completed",
      text: text,
      duration: Math.round(t.durationS * 1000) / 1000,
      date_updated: nowIso(),
    });
  }
  const combined = [text ?? "", ...stored.map((f) => f.answer ?? "")].join("\n").trim();
  const result = await deps.inference.analyse(combined, { evaluatorConfig: evaluator, enableDynamicProbing: true, prompt: q.prompt }, { priority: "live" });
  const question = result.follow_up_questions.find((fq) => !stored.some((f) => f.question === fq));
  if (!question) return { ...done, clarity: result.clarity };
  const next: StoredFollowUp[] = [...stored, { question, answer: null }];
  await responsesRepo.updateAnswer(deps.db, a.uuid, { follow_ups: JSON.stringify(next), date_updated: nowIso() });
  return { clarity: result.clarity, follow_up: { index: stored.length, question }, follow_ups: publicFollowUps(next) };
}

/**
 * Saves the respondent's answer to follow-up `index`, typed (`text`) or recorded (`audio`, which
 * is transcribed now with "live" priority).
 * @throws AppError NOT_FOUND (no such follow-up), VALIDATION_ERROR (empty or over 5000 characters)
 */
export async function answerFollowUp(
  deps: ProbingDeps,
  l: IntakeLink,
  sessionId: string,
  questionUuid: string,
  index: number,
  input: { text: string } | { audio: Uint8Array },
) {
  const { a } = await openAnswer(deps.db, l, sessionId, questionUuid);
  const stored = JSON.parse(a.follow_ups) as StoredFollowUp[];
  const target = stored[index];
  if (!target) throw notFound("Follow-up");
  let updated: StoredFollowUp;
  if ("text" in input) {
    const text = input.text.trim();
    if (!text || text.length > 5000) throw new AppError("VALIDATION_ERROR", "Answer with 1 to 5000 characters.", { errors: [{ pointer: "/value", message: "1 to 5000 characters." }] });
    updated = { question: target.question, answer: text, transcription: null, audio_blob: null };
  } else {
    const t = await deps.inference.transcribe(input.audio, { priority: "live" });
    const key = await deps.blobs.put("audio", input.audio);
    updated = { question: target.question, answer: t.text.trim(), transcription: t.text.trim(), audio_blob: key };
  }
  if (target.audio_blob) await deps.blobs.delete(target.audio_blob);
  const next = stored.map((f, i) => (i === index ? updated : f));
  await responsesRepo.updateAnswer(deps.db, a.uuid, { follow_ups: JSON.stringify(next), date_updated: nowIso() });
  return { follow_ups: publicFollowUps(next) };
}
