/**
 * @module intake/repository
 * The reads every intake request makes (the link by its slugs, its questions, the session's
 * response and answer), as Kysely queries compiled once (db/prepared.ts): a respondent's five
 * requests run about twenty of them (bench/intake.ts). Same queries as the links and responses
 * repositories' `findLinkBySlug`, `questionsOf`, `findResponseBySession` and `findAnswerOf`.
 */
import type { Executor } from "../../db/schema.ts";
import { createDefinitionCache, definitionVersion } from "../../db/definition-cache.ts";
import { prepared } from "../../db/prepared.ts";
import type { WorkspaceRow } from "../workspaces/repository.ts";
import type { LinkRow, QuestionRow } from "../links/repository.ts";
import type { AnswerRow, ResponseRow } from "../responses/repository.ts";

const workspaceBySlug = prepared(1, (db, slug: string) => db.selectFrom("workspaces").selectAll().where("slug", "=", slug));
const linkBySlug = prepared(2, (db, workspaceUuid: string, slug: string) =>
  db.selectFrom("links").selectAll().where("workspace_uuid", "=", workspaceUuid).where("slug", "=", slug),
);
const questionsOfLink = prepared(1, (db, linkUuid: string) =>
  db.selectFrom("questions").selectAll().where("link_uuid", "=", linkUuid).orderBy("order").orderBy("position"),
);
const responseBySession = prepared(1, (db, sessionId: string) => db.selectFrom("responses").selectAll().where("session_id", "=", sessionId));
const answerOf = prepared(2, (db, responseUuid: string, questionUuid: string) =>
  db.selectFrom("answers").selectAll().where("response_uuid", "=", responseUuid).where("question_uuid", "=", questionUuid),
);

type FoundLink = { ws: WorkspaceRow; link: LinkRow; questions: QuestionRow[] };

/** Links (by workspace and link slug) as read at a definition version: every intake request reads one. */
const linksBySlugs = createDefinitionCache<FoundLink>();

/**
 * The workspace with this slug and its link with this slug, with the link's questions in order;
 * undefined when either is missing. Served from memory while the definition counter stands still
 * (db/definition-cache.ts): then one read instead of three. The result is frozen (shared).
 */
export async function findLinkBySlugs(db: Executor, workspaceSlug: string, linkSlug: string): Promise<Readonly<FoundLink> | undefined> {
  const key = `${workspaceSlug}/${linkSlug}`;
  const version = await definitionVersion(db);
  const cached = linksBySlugs.get(db, key, version);
  if (cached) return cached;
  const [ws] = await workspaceBySlug(db, workspaceSlug);
  const [link] = ws ? await linkBySlug(db, ws.uuid, linkSlug) : [];
  if (!ws || !link) return undefined;
  const found: FoundLink = { ws: ws as WorkspaceRow, link, questions: await questionsOfLink(db, link.uuid) };
  linksBySlugs.set(db, key, version, found);
  return found;
}

/** The response of a respondent session. */
export async function findResponseBySession(db: Executor, sessionId: string): Promise<ResponseRow | undefined> {
  return (await responseBySession(db, sessionId))[0];
}

/** The answer of a response to a question, if given. */
export async function findAnswerOf(db: Executor, responseUuid: string, questionUuid: string): Promise<AnswerRow | undefined> {
  return (await answerOf(db, responseUuid, questionUuid))[0];
}

// ---- writes of the respondent's path, compiled once (db/prepared.ts) -------------------------

/** Every column an intake answer row is inserted with, in the compiled statement's order. */
const ANSWER_COLUMNS = [
  "uuid",
  "response_uuid",
  "question_uuid",
  "field_key",
  "response_type",
  "question_text",
  "position",
  "value",
  "text",
  "audio_blob",
  "audio_mime",
  "file_blob",
  "file_meta",
  "transcription",
  "transcription_status",
  "transcription_error",
  "duration",
  "ai_insights",
  "analysis_engine",
  "analysis_status",
  "follow_ups",
  "custom_fields",
  "date_created",
  "date_updated",
] as const satisfies readonly (keyof AnswerRow)[];
const ANSWER_COLUMN_SET = new Set<string>(ANSWER_COLUMNS);

const insertAnswerRow = prepared(ANSWER_COLUMNS.length, (db, ...values: unknown[]) =>
  db.insertInto("answers").values(Object.fromEntries(ANSWER_COLUMNS.map((c, i) => [c, values[i]])) as unknown as AnswerRow),
);
const insertResponseRow = prepared(
  11,
  (
    db,
    uuid: string,
    workspaceUuid: string,
    linkUuid: string,
    sessionId: string,
    status: string,
    email: null,
    created: string,
    updated: string,
    submittedAt: null,
    eventAt: null,
    hidden: string,
  ) =>
    db.insertInto("responses").values({
      uuid,
      workspace_uuid: workspaceUuid,
      link_uuid: linkUuid,
      session_id: sessionId,
      status: status as ResponseRow["status"],
      respondent_email: email,
      date_created: created,
      date_updated: updated,
      submitted_at: submittedAt,
      submitted_event_at: eventAt,
      hidden,
    }),
);
const markAnalysis = prepared(3, (db, status: string, now: string, uuid: string) =>
  db
    .updateTable("answers")
    .set({ analysis_status: status as AnswerRow["analysis_status"], date_updated: now })
    .where("uuid", "=", uuid),
);
const markTranscription = prepared(3, (db, status: string, now: string, uuid: string) =>
  db
    .updateTable("answers")
    .set({ transcription_status: status as AnswerRow["transcription_status"], date_updated: now })
    .where("uuid", "=", uuid),
);
const completeResponseRow = prepared(4, (db, status: string, now: string, updated: string, uuid: string) =>
  db
    .updateTable("responses")
    .set({ status: status as ResponseRow["status"], submitted_at: now, date_updated: updated })
    .where("uuid", "=", uuid),
);

/**
 * Inserts an answer row (same as responses/repository `insertAnswer`, compiled once when the row
 * has only the usual intake columns).
 */
export async function insertAnswer(db: Executor, row: AnswerRow): Promise<void> {
  if (Object.keys(row).some((k) => !ANSWER_COLUMN_SET.has(k))) {
    await db.insertInto("answers").values(row).execute();
    return;
  }
  await insertAnswerRow(db, ...ANSWER_COLUMNS.map((c) => row[c] ?? null));
}

/** Inserts a new `started` response (no email, not submitted). */
export async function insertStartedResponse(
  db: Executor,
  row: Pick<ResponseRow, "uuid" | "workspace_uuid" | "link_uuid" | "session_id" | "date_created" | "date_updated" | "hidden">,
): Promise<void> {
  await insertResponseRow(
    db,
    row.uuid,
    row.workspace_uuid,
    row.link_uuid,
    row.session_id,
    "started",
    null,
    row.date_created,
    row.date_updated,
    null,
    null,
    row.hidden ?? "{}",
  );
}

/** Marks an answer's analysis (`"analysis"`) or transcription (`"transcription"`) as pending at `now`. */
export async function markAnswerPending(db: Executor, answerUuid: string, what: "analysis" | "transcription", now: string): Promise<void> {
  await (what === "analysis" ? markAnalysis : markTranscription)(db, "pending", now, answerUuid);
}

/** Completes a response: status `completed`, submitted at `now`. */
export async function completeResponse(db: Executor, responseUuid: string, now: string): Promise<void> {
  await completeResponseRow(db, "completed", now, now, responseUuid);
}
