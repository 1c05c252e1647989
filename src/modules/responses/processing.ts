/**
 * @module responses/processing
 * Job handlers that turn answers into transcripts and insights (DESIGN §7, §9): `transcribe`
 * (recording → Whisper text and duration) and `analyse` (text → ai_insights). Every path that
 * finishes an answer — a result, an early return for work already done, a final failure — ends in
 * {@link finishAnswer}: the write and the "is the response ready → queue `response.submitted`"
 * check in one transaction, so the event is queued exactly once whichever path comes last.
 */
import type { Kysely, Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import type { BlobStore } from "../../blobs/store.ts";
import { enqueueJob, isClaimStillOurs, type Job, LeaseLostError } from "../../jobs/queue.ts";
import { PermanentJobError, WaitingJobError } from "../../jobs/runner.ts";
import * as linksRepo from "../links/repository.ts";
import { createDefinitionCache, definitionVersion } from "../../db/definition-cache.ts";
import { InferenceError, type InferenceClient } from "../../ai/inference-client.ts";
import { AudioDecodeError, MAX_RECORDING_S } from "../../ai/audio-common.ts";
import { questionRecordingLimitS } from "../links/recording-limit.ts";
import { queueSubmittedEventIfReady } from "./submitted-event.ts";
import { maskSegments, maskText, redactionPolicyOf } from "./redaction.ts";
import * as repo from "./repository.ts";
import { analysisDuration, transcriptionDuration, transcriptionRealTimeFactor } from "../../metrics/instruments.ts";

import { rebuildGivenUp, themeOfNewAnswer } from "../themes/engine.ts";
import { isOpenType } from "../../shared/question-types.ts";
import { updateAnalysedAnswer } from "../themes/repository.ts";
import { vectorBytes, vectorsBytes } from "../themes/codec.ts";
import { analysisTextOf, followUpAnswersOf } from "../themes/analysis-text.ts";

/** `transcription_error` of an answer waiting for the ASR model (`waiting_for_model`). */
export const WAITING_FOR_MODEL = "The speech recognition model is not installed; this answer is transcribed once it is (earshot models fetch).";

/** What processing needs from the inference worker (`ai/inference-client.ts`). */
export type AnswerInference = Pick<InferenceClient, "transcribe" | "analyse" | "buildThemes">;

export type ProcessingDeps = {
  db: Kysely<Database>;
  blobs: BlobStore;
  inference: AnswerInference;
  publicUrl: string;
  signingSecret: string;
  audioUrlTtlS: number;
  nudgeJobs: () => void;
  nudgeOutbox: () => void;
  /** The LAN model (`EARSHOT_LLM_URL`, `EARSHOT_LLM_MODEL`) that labels automatic themes on rebuilds, or none. */
  llm?: { url: string; model: string | null } | null;
};

function answerUuidOf(job: Job): string {
  const uuid = job.payload.answer_uuid;
  if (typeof uuid !== "string") throw new PermanentJobError("Job payload has no answer_uuid.");
  return uuid;
}

/**
 * Runs `write` and then the response's readiness check (`queueSubmittedEventIfReady`) in one
 * transaction, and nudges the job runner and the dispatcher. The one way an answer is finished.
 */
export async function finishAnswer(deps: ProcessingDeps, responseUuid: string, write: (trx: Transaction<Database>) => Promise<void>, job?: Job): Promise<void> {
  const queued = await deps.db.transaction().execute(async (trx) => {
    // A job's result is written only while its claim is still the job's current run (several
    // nodes: a node that stalled past its lease must not write a second transcript).
    if (job && !(await isClaimStillOurs(trx, job))) throw new LeaseLostError(job);
    await write(trx);
    return queueSubmittedEventIfReady(trx, deps, responseUuid);
  });
  deps.nudgeJobs();
  // Only when an event was queued for a webhook: each wake-up runs the dispatcher's claim query.
  if (queued) deps.nudgeOutbox();
}

/**
 * The link's `settings.language` (BCP 47) of an answer's response, or null (none set, or the link
 * was deleted): what transcription is asked for and typed answers are taken to be in (issue 17).
 */
async function linkLanguageOf(db: Kysely<Database>, answer: repo.AnswerRow): Promise<string | null> {
  const settings = await linkSettingsOf(db, answer);
  const language = settings ? (JSON.parse(settings) as { language?: unknown }).language : null;
  return typeof language === "string" && language !== "" ? language : null;
}

/** The stored `settings` JSON of an answer's link, or null (the link was deleted). */
async function linkSettingsOf(db: Kysely<Database>, answer: repo.AnswerRow): Promise<string | null> {
  const response = await repo.findResponseByUuid(db, answer.response_uuid);
  const link = response ? await linksRepo.findLink(db, response.workspace_uuid, response.link_uuid) : undefined;
  return link ? link.settings : null;
}

/**
 * The transcript and segments as they may be stored: masked under the link's `settings.redact_pii`
 * (issue 25; responses/redaction.ts), in this step before the database write, so the unmasked text
 * never reaches the database. Masked when the link says so now or said so at submit (`redact_pii`
 * in the job's payload); when the link was deleted meanwhile the payload decides, and without one
 * (a reprocessed answer of a deleted link) the text is masked: nothing is stored unmasked on a guess.
 * @param jobPayload the `transcribe` job's payload (`redact_pii?: boolean`)
 */
export async function storableTranscript(
  db: Kysely<Database>,
  answer: repo.AnswerRow,
  result: { text: string; language?: string | null; segments?: { start_s: number; end_s: number; text: string }[]; translation?: string | null },
  jobPayload: Record<string, unknown> = {},
): Promise<{ transcript: string; segments: string | null; translation: string | null }> {
  const settings = await linkSettingsOf(db, answer);
  const flagged = jobPayload.redact_pii;
  const redact = settings ? redactionPolicyOf(settings) !== null || flagged === true : flagged !== false;
  const language = settings ? (JSON.parse(settings) as { language?: unknown }).language : null;
  const policy = redact ? redactionPolicyOf(JSON.stringify({ redact_pii: true, language })) : null;
  const spoken = result.language ?? null;
  return {
    transcript: maskText(result.text.trim(), policy, spoken),
    segments: result.segments ? JSON.stringify(maskSegments(result.segments, policy, spoken)) : null,
    // Whisper's English translation is stored text too: masked as English.
    translation: result.translation ? maskText(result.translation.trim(), policy, "en") : null,
  };
}

/** True for an English BCP 47 tag (`en`, `en-GB`). */
function isEnglish(language: string | null): boolean {
  return language !== null && language.split("-")[0]!.toLowerCase() === "en";
}

/** The longest recording the answer's question accepts (its `max_duration` + 2 s), seconds. */
async function recordingLimitOf(db: Kysely<Database>, answer: repo.AnswerRow): Promise<number> {
  const response = await repo.findResponseByUuid(db, answer.response_uuid);
  const questions = response ? await linksRepo.questionsOf(db, [response.link_uuid]) : [];
  const q = questions.find((x) => x.uuid === answer.question_uuid);
  return q ? questionRecordingLimitS(q) : MAX_RECORDING_S;
}

/**
 * Handles a `transcribe` job: decode (bounded by the question's `max_duration` + 2 s) + Whisper
 * in the worker, then queue analysis. An answer already transcribed (a run that committed just
 * before a crash) only gets the readiness check.
 */
export async function transcribeAnswer(deps: ProcessingDeps, job: Job): Promise<void> {
  const answer = await repo.findAnswer(deps.db, answerUuidOf(job));
  if (!answer) return; // erased
  if (!answer.audio_blob || answer.transcription_status === "completed" || answer.transcription_status === "failed") {
    await finishAnswer(deps, answer.response_uuid, async () => {}, job);
    return;
  }
  await repo.updateAnswer(deps.db, answer.uuid, { transcription_status: "processing", date_updated: nowIso() });
  const audio = await deps.blobs.get(answer.audio_blob);
  if (!audio) throw new PermanentJobError("The recording is missing from the blob store.");
  let result: {
    text: string;
    durationS: number;
    language?: string | null;
    segments?: { start_s: number; end_s: number; text: string }[];
    translation?: string | null;
  };
  try {
    const language = await linkLanguageOf(deps.db, answer);
    const maxDurationS = await recordingLimitOf(deps.db, answer);
    const startMs = performance.now();
    // Issue 24: unless the link is English, Whisper also translates non-English speech in the
    // same job (a multilingual model only; English speech or an English-only model give none).
    const translate = !isEnglish(language);
    result = await deps.inference.transcribe(audio, { priority: "batch", maxDurationS, language, translate });
    const seconds = (performance.now() - startMs) / 1000;
    transcriptionDuration.observe(seconds);
    if (result.durationS > 0) transcriptionRealTimeFactor.observe(seconds / result.durationS);
  } catch (err) {
    // An English-only model and a German link: fail with the operator's reason (reprocess after
    // installing a multilingual model) rather than store an English-sounding transcript.
    if (err instanceof InferenceError && err.code === "LANGUAGE_UNSUPPORTED") throw new PermanentJobError(err.message);
    // AudioTooLongError is one too: the recording is longer than its question's max_duration + 2 s.
    if (err instanceof AudioDecodeError) throw new PermanentJobError(`The recording could not be decoded: ${err.message}`);
    if (err instanceof InferenceError && err.code === "MODEL_MISSING") {
      // Wait for the model (issue 12): no attempt is used; the runner resumes the job once the
      // model's files appear. The reason is for operators; the file path stays in the log.
      await repo.updateAnswer(deps.db, answer.uuid, {
        transcription_status: "waiting_for_model",
        transcription_error: WAITING_FOR_MODEL,
        date_updated: nowIso(),
      });
      throw new WaitingJobError(`${WAITING_FOR_MODEL} (${err.message})`);
    }
    throw err;
  }
  const { transcript, segments, translation } = await storableTranscript(deps.db, answer, result, job.payload);
  const analyse = transcript.length > 0;
  await finishAnswer(
    deps,
    answer.response_uuid,
    async (trx) => {
      await repo.updateAnswer(trx, answer.uuid, {
        transcription: transcript,
        transcription_status: "completed",
        transcription_error: null,
        text: answer.text ?? transcript,
        duration: Math.round(result.durationS * 1000) / 1000,
        language: result.language ?? null,
        segments,
        translation,
        analysis_status: analyse ? "pending" : "not_applicable",
        date_updated: nowIso(),
      });
      if (analyse) await enqueueJob(trx, "analyse", { answer_uuid: answer.uuid });
    },
    job,
  );
}

/** A link's questions and `settings.language` as the analyse job reads them, per definition version. */
const analyseDefinitions = createDefinitionCache<{ questions: readonly linksRepo.QuestionRow[]; language: string | null }>();

/**
 * The questions and language of a response's link: from memory while the definition counter stands
 * still (db/definition-cache.ts; issue 24: two reads less per analysed answer), else read.
 * `language`: the link's `settings.language`, null when none is set or the link was deleted.
 */
async function analyseDefinitionOf(db: Kysely<Database>, response: repo.ResponseRow) {
  const version = await definitionVersion(db);
  const cached = analyseDefinitions.get(db, response.link_uuid, version);
  if (cached) return cached;
  const questions = await linksRepo.questionsOf(db, [response.link_uuid]);
  const link = await linksRepo.findLink(db, response.workspace_uuid, response.link_uuid);
  const setting = link ? (JSON.parse(link.settings) as { language?: unknown }).language : null;
  const value = { questions, language: typeof setting === "string" && setting !== "" ? setting : null };
  analyseDefinitions.set(db, response.link_uuid, version, value);
  return value;
}

/**
 * The stored form of an answer's follow-up vectors (`answers.follow_up_embeddings`): one vector
 * per entry of `follow_ups`, zeros for one left unanswered; null when none was answered.
 */
function followUpVectorsBytes(stored: string, answered: { index: number }[], e: { vector: Float32Array; followUps?: Float32Array[] }) {
  if (answered.length === 0 || e.followUps?.length !== answered.length) return null;
  const all: Float32Array[] = Array.from({ length: (JSON.parse(stored) as unknown[]).length }, () => new Float32Array(e.vector.length));
  answered.forEach((f, i) => {
    all[f.index] = e.followUps![i]!;
  });
  return vectorsBytes(all);
}

/** Handles an `analyse` job: ai_insights, clarity-driven follow-ups and custom fields. */
export async function analyseAnswer(deps: ProcessingDeps, job: Job): Promise<void> {
  const answer = await repo.findAnswer(deps.db, answerUuidOf(job));
  if (!answer) return;
  // The English engines read the translation of a non-English voice answer when there is one.
  const text = analysisTextOf(answer);
  const followUps = followUpAnswersOf(answer);
  const response = await repo.findResponseByUuid(deps.db, answer.response_uuid);
  const definition = response ? await analyseDefinitionOf(deps.db, response) : null;
  const q = definition?.questions.find((x) => x.uuid === answer.question_uuid);
  const config = q ? (JSON.parse(q.configuration) as Record<string, unknown>) : {};
  const wanted = config.enable_ai_evaluation !== false;
  // The answer's language: as transcribed, else (typed answers) the link's (issue 17).
  const language = answer.language ?? definition?.language ?? null;
  let patch: Partial<repo.AnswerRow> = { analysis_status: "not_applicable", language };
  let embedding: { engine: string; vector: Float32Array } | null = null;
  if (text && wanted) {
    let r: Awaited<ReturnType<AnswerInference["analyse"]>>;
    try {
      const endTimer = analysisDuration.startTimer();
      r = await deps.inference.analyse(
        text,
        {
          evaluatorConfig: q ? JSON.parse(q.evaluator_config) : {},
          enableDynamicProbing: false,
          prompt: q?.prompt ?? answer.question_text,
        },
        // The theme vector comes from the same text (answer and follow-ups), in the same request;
        // a translation is English whatever the answer's own language.
        // The follow-up answers get their own vectors in the same request (issue 24).
        { language: answer.translation ? "en" : language, embed: true, embedFollowUps: followUps.map((f) => f.text) },
      );
      endTimer();
    } catch (err) {
      // An English-only engine must not label a German answer: no insights, and why.
      if (!(err instanceof InferenceError && err.code === "LANGUAGE_UNSUPPORTED")) throw err;
      await finishAnswer(
        deps,
        answer.response_uuid,
        async (trx) => {
          await repo.updateAnswer(trx, answer.uuid, { analysis_status: "unsupported_language", ai_insights: null, language, date_updated: nowIso() });
        },
        job,
      );
      return;
    }
    patch = {
      language,
      ai_insights: JSON.stringify(r.ai_insights),
      custom_fields: JSON.stringify(r.custom_fields ?? {}),
      analysis_engine: JSON.stringify({ ...r.engine, clarity: r.clarity }),
      analysis_status: "completed",
      ...(r.embedding
        ? {
            embedding: vectorBytes(r.embedding.vector),
            embedding_engine: r.embedding.engine,
            follow_up_embeddings: followUpVectorsBytes(answer.follow_ups, followUps, r.embedding),
          }
        : {}),
    };
    embedding = r.embedding ?? null;
  }
  await finishAnswer(
    deps,
    answer.response_uuid,
    async (trx) => {
      // Its theme, in the same transaction (DESIGN §12; themes/engine.ts), written with the answer
      // in one statement (issue 24: no more cost per answer than before themes).
      let theme: string | null = null;
      if (embedding && response && q && isOpenType(q.type)) {
        const a = { workspaceUuid: response.workspace_uuid, linkUuid: response.link_uuid, questionUuid: q.uuid };
        theme = await themeOfNewAnswer(trx, a, embedding.vector, embedding.engine, deps.db);
      }
      await updateAnalysedAnswer(trx, answer.uuid, { ...patch, date_updated: nowIso() }, theme);
    },
    job,
  );
}

/**
 * After a job's final failure (including a job given up after `max_attempts` interrupted runs):
 * mark its answer failed with the reason — unless that step already finished — and let the
 * event go. Idempotent, so the runner may call it again after a crash.
 */
export async function giveUpOnAnswer(deps: ProcessingDeps, job: Job, error: string): Promise<void> {
  if (job.kind === "themes") return rebuildGivenUp(deps.db, job);
  const uuid = typeof job.payload.answer_uuid === "string" ? job.payload.answer_uuid : null;
  const answer = uuid ? await repo.findAnswer(deps.db, uuid) : undefined;
  if (!answer) return;
  await finishAnswer(deps, answer.response_uuid, async (trx) => {
    const current = await repo.findAnswer(trx, answer.uuid);
    if (!current) return;
    if (job.kind === "transcribe" && ["pending", "processing", "waiting_for_model"].includes(current.transcription_status)) {
      await repo.updateAnswer(trx, answer.uuid, { transcription_status: "failed", transcription_error: error.slice(0, 500), date_updated: nowIso() });
    } else if (job.kind === "analyse" && current.analysis_status === "pending") {
      await repo.updateAnswer(trx, answer.uuid, { analysis_status: "failed", date_updated: nowIso() });
    }
  });
}
