/**
 * @module responses/repository
 * Kysely queries for responses and answers (FTS5 search lives in `db/search.ts`).
 */
import type { Kysely, Transaction } from "kysely";
import type { AnswerTable, Database, ResponseTable } from "../../db/schema.ts";
import { compactAnswerIndex, matchingResponseUuids } from "../../db/search.ts";

type Q = Kysely<Database> | Transaction<Database>;
export type ResponseRow = ResponseTable;
export type AnswerRow = AnswerTable;

export type ResponseFilter = {
  workspaceUuid: string;
  linkUuid?: string;
  status: "completed" | "started" | "all";
  search?: string;
  orderBy: "submitted_at" | "date_created";
  direction: "asc" | "desc";
};

function filtered(db: Q, f: ResponseFilter) {
  let q = db.selectFrom("responses").where("workspace_uuid", "=", f.workspaceUuid);
  if (f.linkUuid) q = q.where("link_uuid", "=", f.linkUuid);
  if (f.status !== "all") q = q.where("status", "=", f.status);
  if (f.search) {
    const term = f.search;
    const escaped = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const viaText = matchingResponseUuids(term);
    q = q.where((eb) =>
      eb.or([
        eb("respondent_email", "like", eb.val(escaped)),
        ...(viaText ? [eb("uuid", "in", viaText)] : []),
      ]),
    );
  }
  return q;
}

export async function listResponses(db: Q, f: ResponseFilter, limit: number, offset: number) {
  const base = filtered(db, f);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      // NULL submitted_at (started responses) sort last in either direction.
      .orderBy((eb) => eb.fn.coalesce(f.orderBy, "date_created"), f.direction)
      .orderBy("date_created", f.direction)
      .orderBy("uuid")
      .limit(limit)
      .offset(offset)
      .execute(),
    base
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n)),
  ]);
  return { rows, count };
}

export function findResponse(db: Q, workspaceUuid: string, uuid: string): Promise<ResponseRow | undefined> {
  return db.selectFrom("responses").selectAll().where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", uuid).executeTakeFirst();
}

export function findResponseByUuid(db: Q, uuid: string): Promise<ResponseRow | undefined> {
  return db.selectFrom("responses").selectAll().where("uuid", "=", uuid).executeTakeFirst();
}

export function findResponseBySession(db: Q, sessionId: string): Promise<ResponseRow | undefined> {
  return db.selectFrom("responses").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
}

export function insertResponse(db: Q, row: ResponseRow) {
  return db.insertInto("responses").values(row).execute();
}

export function updateResponse(db: Q, uuid: string, patch: Partial<Omit<ResponseRow, "uuid">>) {
  return db.updateTable("responses").set(patch).where("uuid", "=", uuid).execute();
}

export function deleteResponse(db: Q, uuid: string) {
  return db.deleteFrom("responses").where("uuid", "=", uuid).execute();
}

export function answersOf(db: Q, responseUuids: string[]): Promise<AnswerRow[]> {
  if (!responseUuids.length) return Promise.resolve([]);
  return db.selectFrom("answers").selectAll().where("response_uuid", "in", responseUuids).orderBy("position").execute();
}

export function findAnswer(db: Q, uuid: string): Promise<AnswerRow | undefined> {
  return db.selectFrom("answers").selectAll().where("uuid", "=", uuid).executeTakeFirst();
}

export function findAnswerOf(db: Q, responseUuid: string, questionUuid: string): Promise<AnswerRow | undefined> {
  return db.selectFrom("answers").selectAll().where("response_uuid", "=", responseUuid).where("question_uuid", "=", questionUuid).executeTakeFirst();
}

export function insertAnswer(db: Q, row: AnswerRow) {
  return db.insertInto("answers").values(row).execute();
}

export function updateAnswer(db: Q, uuid: string, patch: Partial<Omit<AnswerRow, "uuid">>) {
  return db.updateTable("answers").set(patch).where("uuid", "=", uuid).execute();
}

/** Answers of a response whose transcription or analysis is still outstanding. */
export async function countUnprocessedAnswers(db: Q, responseUuid: string): Promise<number> {
  const r = await db
    .selectFrom("answers")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("response_uuid", "=", responseUuid)
    .where((eb) => eb.or([eb("transcription_status", "in", ["pending", "processing"]), eb("analysis_status", "=", "pending")]))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Deletes a response's answers (their search rows go with them, by trigger). */
export function deleteAnswersOf(db: Q, responseUuid: string) {
  return db.deleteFrom("answers").where("response_uuid", "=", responseUuid).execute();
}

/** Deletes the transcription and analysis jobs of these answers, whatever their state. */
export async function deleteJobsOfAnswers(db: Q, answerUuids: string[]): Promise<void> {
  if (!answerUuids.length) return;
  await db
    .deleteFrom("jobs")
    .where((eb) => eb(eb.fn("json_extract", ["payload", eb.val("$.answer_uuid")]), "in", answerUuids))
    .execute();
}

/** Drops the index entries deleted answers left behind (`db/search.ts`). */
export function compactSearchIndex(db: Q): Promise<void> {
  return compactAnswerIndex(db);
}
