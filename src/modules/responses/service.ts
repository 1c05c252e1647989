/**
 * @module responses/service
 * Response records (DESIGN §7): mapping stored rows to the API's response and answer objects,
 * listing per link and workspace-wide, retrieval, and erasure.
 */
import type { Kysely, Transaction } from "kysely";
import type { Database, Executor } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import type { z } from "zod";
import type { answerSchema, ResponseFilterQuery, responseSchema } from "./model.ts";
import type { AuthContext, Authenticator } from "../../auth/authenticate.ts";
import { signedPath } from "../../auth/signed-url.ts";
import type { BlobStore } from "../../blobs/store.ts";
import { isUuid } from "../../shared/uuid.ts";
import * as linksRepo from "../links/repository.ts";
import { eraseResponseEvents } from "../../outbox/repository.ts";
import * as repo from "./repository.ts";
import { forgetAnswers, themeLabels } from "../themes/service.ts";

export type ResponseDeps = {
  db: Kysely<Database>;
  publicUrl: string;
  auth: Authenticator;
  blobs: BlobStore;
  signingSecret: string;
  audioUrlTtlS: number;
};

/** The answer object (DESIGN §7): the output of `answerSchema`, the schema the OpenAPI document and the API tests check. */
export type AnswerRecord = z.output<typeof answerSchema>;

/** The response record (spec: Response record; DESIGN §7): the output of `responseSchema`. */
export type ResponseRecord = z.output<typeof responseSchema>;

/** Path of an answer's recording under the API (signed for Bearer-less access). */
export function audioPath(responseUuid: string, answerUuid: string): string {
  return `/api/v1/responses/${responseUuid}/answers/${answerUuid}/audio/`;
}

/** Path of a follow-up's recording under the API. */
export function followUpAudioPath(responseUuid: string, answerUuid: string, index: number): string {
  return `/api/v1/responses/${responseUuid}/answers/${answerUuid}/follow-ups/${index}/audio/`;
}

/** Blob keys an answer holds: its recording, its file and its follow-ups' recordings. */
export function blobsOfAnswer(a: repo.AnswerRow): string[] {
  const followUps = JSON.parse(a.follow_ups) as { audio_blob?: string | null }[];
  return [a.audio_blob, a.file_blob, ...followUps.map((f) => f.audio_blob ?? null)].filter((k): k is string => typeof k === "string");
}

/** Path of an answer's uploaded file under the API. */
export function filePath(responseUuid: string, answerUuid: string): string {
  return `/api/v1/responses/${responseUuid}/answers/${answerUuid}/file/`;
}

type Mapper = Pick<ResponseDeps, "publicUrl" | "signingSecret" | "audioUrlTtlS">;

/** Maps an answer row; `questionConfig` supplies rating and image card details when known. */
export function toAnswerRecord(
  m: Mapper,
  a: repo.AnswerRow,
  questionConfig: Record<string, unknown> | undefined,
  themeLabels: Map<string, string> = new Map(),
): AnswerRecord {
  const themeLabel = a.theme_uuid ? themeLabels.get(a.theme_uuid) : undefined;
  const value = JSON.parse(a.value) as unknown;
  const rec: AnswerRecord = {
    uuid: a.uuid,
    question_uuid: a.question_uuid,
    field_key: a.field_key,
    response_type: a.response_type as AnswerRecord["response_type"],
    question_text: a.question_text,
    value,
    text: a.text,
    audio_url: a.audio_blob ? m.publicUrl + signedPath(m.signingSecret, audioPath(a.response_uuid, a.uuid), m.audioUrlTtlS) : null,
    audio_deleted_at: a.audio_deleted_at ?? null,
    transcription: a.transcription,
    transcription_status: a.transcription_status,
    transcription_error: a.transcription_error,
    duration: a.duration,
    ai_insights: a.ai_insights ? (JSON.parse(a.ai_insights) as AnswerRecord["ai_insights"]) : null,
    analysis_engine: a.analysis_engine ? (JSON.parse(a.analysis_engine) as Record<string, unknown>) : null,
    analysis_status: a.analysis_status,
    language: a.language ?? null,
    follow_ups: (JSON.parse(a.follow_ups) as { question: string; answer: string | null; transcription?: string | null; audio_blob?: string | null }[]).map(
      (f, i) => ({
        question: f.question,
        answer: f.answer,
        audio_url: f.audio_blob ? m.publicUrl + signedPath(m.signingSecret, followUpAudioPath(a.response_uuid, a.uuid, i), m.audioUrlTtlS) : null,
        transcription: f.transcription ?? null,
      }),
    ),
    custom_fields: JSON.parse(a.custom_fields) as Record<string, unknown>,
    theme: a.theme_uuid && themeLabel !== undefined ? { uuid: a.theme_uuid, label: themeLabel } : null,
    segments: a.segments ? (JSON.parse(a.segments) as AnswerRecord["segments"]) : null,
    translation: a.translation ?? null,
  };
  const config = questionConfig ?? {};
  if (a.response_type === "rating") {
    rec.rating_details = {
      value: typeof value === "number" ? value : null,
      max_value: Number(config.max_value ?? 5),
      scale_type: String(config.scale_type ?? "stars") as NonNullable<AnswerRecord["rating_details"]>["scale_type"],
    };
  }
  if (a.response_type === "image_choice") {
    const cards = (config.cards ?? []) as { id: string; label: string; media_url: string; media_type?: string }[];
    const card = cards.find((c) => c.id === value);
    rec.selected_card = card
      ? { card_id: card.id, label: card.label, media_url: card.media_url, media_type: card.media_type === "video" ? "video" : "image" }
      : typeof value === "string"
        ? { card_id: value, label: a.text ?? value, media_url: "", media_type: "image" }
        : null;
  }
  if (a.response_type === "file_upload") {
    const meta = a.file_meta ? (JSON.parse(a.file_meta) as { name: string; size: number; content_type: string }) : null;
    rec.file = meta && a.file_blob ? { ...meta, url: m.publicUrl + filePath(a.response_uuid, a.uuid) } : null;
  }
  return rec;
}

/** Loads answers (and question configurations, when the link still exists) for response rows. */
export async function toResponseRecords(db: Executor, m: Mapper, rows: repo.ResponseRow[]): Promise<ResponseRecord[]> {
  const answers = await repo.answersOf(
    db,
    rows.map((r) => r.uuid),
  );
  const questions = await linksRepo.questionsOf(db, [...new Set(rows.map((r) => r.link_uuid))]);
  const configOf = new Map(questions.map((q) => [q.uuid, JSON.parse(q.configuration) as Record<string, unknown>]));
  const labels = await themeLabels(
    db,
    answers.flatMap((a) => (a.theme_uuid ? [a.theme_uuid] : [])),
  );
  return rows.map((r) => ({
    uuid: r.uuid,
    link_uuid: r.link_uuid,
    session_id: r.session_id,
    status: r.status,
    respondent_email: r.respondent_email,
    date_created: r.date_created,
    submitted_at: r.submitted_at,
    consent: r.consent_given_at && r.consent_text_sha256 ? { given_at: r.consent_given_at, text_sha256: r.consent_text_sha256 } : null,
    hidden: JSON.parse(r.hidden ?? "{}") as Record<string, string>,
    answers: answers.filter((a) => a.response_uuid === r.uuid).map((a) => toAnswerRecord(m, a, configOf.get(a.question_uuid), labels)),
  }));
}

/** `question=` as question uuids: a uuid as given, a field_key as its current questions (null: none, match answers by field_key). */
async function questionUuidsOf(db: Executor, workspaceUuid: string, linkUuid: string | undefined, ref: string): Promise<string[] | null> {
  if (isUuid(ref)) return [ref.toLowerCase()];
  const uuids = await linksRepo.questionUuidsByFieldKey(db, workspaceUuid, linkUuid !== undefined && isUuid(linkUuid) ? linkUuid : undefined, ref);
  return uuids.length ? uuids : null;
}

/**
 * The repository's selection for the filters of a list or export query (issue 11).
 * @throws AppError VALIDATION_ERROR (pointer `/value`, `/value_min`, `/value_max`) when a value
 *   filter comes without `question`
 */
export async function selectionOf(db: Executor, workspaceUuid: string, linkUuid: string | undefined, q: ResponseFilterQuery): Promise<repo.ResponseSelection> {
  const valued = (["value", "value_min", "value_max"] as const).filter((k) => q[k] !== undefined);
  if (valued.length && !q.question) {
    throw new AppError("VALIDATION_ERROR", "A value filter needs question= (a question uuid or field_key).", {
      errors: valued.map((k) => ({ pointer: `/${k}`, message: "Give question= with this filter." })),
    });
  }
  return {
    workspaceUuid,
    linkUuid,
    status: q.status,
    search: q.search,
    since: q.since,
    until: q.until,
    sentiment: q.sentiment,
    actionable: q.actionable,
    topic: q.topic,
    theme: q.theme?.toLowerCase(),
    hidden: q.hidden && Object.keys(q.hidden).length ? q.hidden : undefined,
    answer: q.question
      ? {
          question: q.question,
          questionUuids: await questionUuidsOf(db, workspaceUuid, linkUuid, q.question),
          value: q.value,
          min: q.value_min,
          max: q.value_max,
        }
      : undefined,
  };
}

/**
 * One page of responses (of one link, or workspace-wide).
 * @throws AppError NOT_FOUND when `filter.linkUuid` is not a link of the workspace
 */
export async function listResponses(deps: ResponseDeps, auth: AuthContext, filter: repo.ResponseFilter, limit: number, offset: number, requireLink: boolean) {
  if (filter.linkUuid !== undefined && requireLink) {
    const link = isUuid(filter.linkUuid) ? await linksRepo.findLink(deps.db, auth.workspaceUuid, filter.linkUuid) : undefined;
    if (!link) throw notFound("Link");
  }
  const { rows, count } = await repo.listResponses(deps.db, { ...filter, workspaceUuid: auth.workspaceUuid }, limit, offset);
  return { count, results: await toResponseRecords(deps.db, deps, rows) };
}

/**
 * One response of the workspace (optionally checked to belong to `linkUuid`).
 * @throws AppError NOT_FOUND
 */
export async function getResponse(deps: ResponseDeps, auth: AuthContext, uuid: string, linkUuid?: string): Promise<ResponseRecord> {
  const row = isUuid(uuid) ? await repo.findResponse(deps.db, auth.workspaceUuid, uuid) : undefined;
  if (!row || (linkUuid !== undefined && row.link_uuid !== linkUuid)) throw notFound("Response");
  const [rec] = await toResponseRecords(deps.db, deps, [row]);
  return rec!;
}

/**
 * The database part of erasing a response (DESIGN §7; docs/api.md "Erasure"), inside the caller's
 * transaction: its answers, their quotes and examples in themes, their search-index entries (FTS5
 * secure-delete: no deleted word survives in the index), their jobs, and every copy the outbox
 * holds — its events' payloads are redacted, their pending deliveries cancelled and their logs'
 * response excerpts dropped (`eraseResponseEvents`). Shared by `DELETE responses/{uuid}/` and
 * retention (modules/retention), so both erase the same things.
 * @returns the blob keys (recordings, files) the caller deletes from the blob store after commit
 */
export async function eraseResponseRows(trx: Transaction<Database>, responseUuid: string): Promise<string[]> {
  const answers = await repo.answersOf(trx, [responseUuid]);
  await repo.deleteJobsOfAnswers(
    trx,
    answers.map((a) => a.uuid),
  );
  // Themes keep no quote or example of an erased answer (their counts are computed, so they follow).
  await forgetAnswers(
    trx,
    answers.map((a) => a.uuid),
  );
  await repo.deleteAnswersOf(trx, responseUuid);
  await repo.deleteResponse(trx, responseUuid);
  await eraseResponseEvents(trx, responseUuid);
  return answers.flatMap(blobsOfAnswer);
}

/**
 * Erases a response (DESIGN §7; docs/api.md "Erasure"): in one transaction {@link eraseResponseRows};
 * then its recordings and files are deleted from the blob store.
 * @throws AppError NOT_FOUND, UNAUTHENTICATED
 */
export async function deleteResponse(deps: ResponseDeps, auth: AuthContext, uuid: string): Promise<void> {
  const blobs = await deps.db.transaction().execute(async (trx) => {
    const row = isUuid(uuid) ? await repo.findResponse(trx, auth.workspaceUuid, uuid) : undefined;
    if (!row) throw notFound("Response");
    const keys = await eraseResponseRows(trx, row.uuid);
    await deps.auth.assertActive(trx, auth);
    return keys;
  });
  await Promise.all(blobs.map((k) => deps.blobs.delete(k)));
}
