/**
 * @module responses/repository
 * Kysely queries for responses and answers (FTS5 search lives in `db/search.ts`).
 */
import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type { AnswerTable, Database, ResponseTable, Executor } from "../../db/schema.ts";
import { matchingResponseUuids } from "../../db/search.ts";
import { isTrue, jsonFlagIs, jsonHasText, jsonMayContain, jsonNumber, jsonValue } from "../../db/json.ts";

export type ResponseRow = ResponseTable;
export type AnswerRow = AnswerTable;

/**
 * An answer that holds something: a value, text, a recording or a file. Written exactly as the
 * expression of the index `answers_response_holds` (migration 2026-11-26T0102), for the table
 * aliased `a`, so the counts and the `question=` filter read only that index.
 */
export const answered = (db: Executor) =>
  isTrue(
    db,
    sql`(${sql.ref("a.value")} <> 'null' OR ${sql.ref("a.text")} IS NOT NULL OR ${sql.ref("a.audio_blob")} IS NOT NULL OR ${sql.ref("a.file_blob")} IS NOT NULL)`,
  );

/**
 * Which answer `question` + `value` filters test, and how (docs/api.md "Filtering responses").
 * `questionUuids`: the question uuids `question` resolved to (a uuid, or the current questions
 * with that field_key), so the probe uses the (response, question) index; null to match answers
 * by `question` as uuid or field_key (questions since removed).
 */
export type QuestionValueFilter = { question: string; questionUuids: string[] | null; value?: string; min?: number; max?: number };

/** Response filters (issue 11); every given one must hold. Dates are stored timestamps. */
export type ResponseSelection = {
  workspaceUuid: string;
  linkUuid?: string;
  status: "completed" | "started" | "all";
  search?: string;
  /** Inclusive lower bound on `coalesce(submitted_at, date_created)`. */
  since?: string;
  /** Exclusive upper bound on `coalesce(submitted_at, date_created)`. */
  until?: string;
  sentiment?: "positive" | "neutral" | "negative";
  actionable?: boolean;
  topic?: string;
  /** An answer belongs to this theme (DESIGN §12). */
  theme?: string;
  /** Hidden-field values by name, each equal (issue 25). */
  hidden?: Record<string, string>;
  answer?: QuestionValueFilter;
};

export type ResponseFilter = ResponseSelection & {
  orderBy: "submitted_at" | "date_created";
  direction: "asc" | "desc";
};

const CHOICE_TYPES = ["multiple_choice", "image_choice"];
const NUMERIC_TYPES = ["rating", "number"];
const TEXT_TYPES = ["text", "voice", "voice_text_fallback", "email"];
const YES = new Set(["true", "yes"]);
const NO = new Set(["false", "no"]);

/** `column` contains `text` literally, case-insensitively (wildcards escaped; see links/repository). */
function containsText(column: string, text: string): Expression<SqlBool> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`;
}

/** The answer-level condition of a `question` + `value` filter, per answer type. */
function answerMatches(db: Executor, eb: ExpressionBuilder<Database & { a: AnswerTable }, "a">, f: QuestionValueFilter): Expression<SqlBool> {
  const which = f.questionUuids
    ? f.questionUuids.length
      ? eb("a.question_uuid", "in", f.questionUuids)
      : sql<SqlBool>`1 = 0`
    : eb.or([eb("a.question_uuid", "=", f.question), eb("a.field_key", "=", f.question)]);
  const conds: Expression<SqlBool>[] = [which, answered(db)];
  if (f.value !== undefined) {
    const v = f.value.trim();
    const asNumber = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : null;
    const lower = v.toLowerCase();
    const perType: Expression<SqlBool>[] = [
      eb.and([eb("a.response_type", "in", CHOICE_TYPES), jsonHasText(db, "a.value", "$", v)]),
      eb.and([eb("a.response_type", "=", "date"), eb("a.value", "=", JSON.stringify(v))]),
      eb.and([eb("a.response_type", "in", [...TEXT_TYPES, "file_upload"]), containsText("a.text", v)]),
    ];
    if (asNumber !== null) perType.push(eb.and([eb("a.response_type", "in", NUMERIC_TYPES), eb("a.value", "=", JSON.stringify(asNumber))]));
    if (YES.has(lower) || NO.has(lower)) perType.push(eb.and([eb("a.response_type", "=", "yes_no"), eb("a.value", "=", YES.has(lower) ? "true" : "false")]));
    conds.push(eb.or(perType));
  }
  if (f.min !== undefined || f.max !== undefined) {
    conds.push(eb("a.response_type", "in", NUMERIC_TYPES));
    if (f.min !== undefined) conds.push(eb(jsonNumber(db, "a.value"), ">=", f.min));
    if (f.max !== undefined) conds.push(eb(jsonNumber(db, "a.value"), "<=", f.max));
  }
  return eb.and(conds);
}

/** Adds the selection's conditions to a query over `responses` (unaliased). */
export function applySelection<QB extends SelectQueryBuilder<Database, "responses", object>>(db: Executor, q: QB, f: ResponseSelection): QB {
  let out = q.where("responses.workspace_uuid", "=", f.workspaceUuid);
  if (f.linkUuid) out = out.where("responses.link_uuid", "=", f.linkUuid);
  if (f.status !== "all") out = out.where("responses.status", "=", f.status);
  if (f.since !== undefined || f.until !== undefined) {
    const at = sql<string>`coalesce(${sql.ref("responses.submitted_at")}, ${sql.ref("responses.date_created")})`;
    if (f.since !== undefined) out = out.where(at, ">=", f.since);
    if (f.until !== undefined) out = out.where(at, "<", f.until);
  }
  for (const [name, value] of Object.entries(f.hidden ?? {})) {
    // Names are field-key style (responses/hidden-filter.ts), so the path is a plain literal.
    out = out.where(jsonValue<string>(db, "responses.hidden", `$.${name}`), "=", value);
  }
  if (f.search) {
    const term = f.search;
    const viaText = matchingResponseUuids(db, term);
    out = out.where((eb) => eb.or([containsText("responses.respondent_email", term), ...(viaText ? [eb("responses.uuid", "in", viaText)] : [])]));
  }
  const answerConds: ((eb: ExpressionBuilder<Database & { a: AnswerTable }, "a">) => Expression<SqlBool>)[] = [];
  if (f.sentiment) {
    const s = f.sentiment;
    answerConds.push((eb) => eb(jsonValue(db, "a.ai_insights", "$.sentiment"), "=", s));
  }
  if (f.topic) {
    const t = f.topic;
    // Read from the topics expression index (migration 2026-11-26T0102), never the answer rows.
    answerConds.push((eb) =>
      eb.and([
        eb(jsonValue(db, "a.ai_insights", "$.key_topics"), "is not", null),
        jsonMayContain(db, "a.ai_insights", "$.key_topics", t),
        jsonHasText(db, "a.ai_insights", "$.key_topics", t),
      ]),
    );
  }
  if (f.theme) {
    const t = f.theme;
    answerConds.push((eb) => eb("a.theme_uuid", "=", t));
  }
  if (f.actionable === true) answerConds.push(() => jsonFlagIs(db, "a.ai_insights", "$.actionable", true));
  if (f.answer) {
    const a = f.answer;
    answerConds.push((eb) => answerMatches(db, eb, a));
  }
  // Each condition on its own answer: "negative" and "about pricing" may be two answers.
  for (const cond of answerConds) {
    out = out.where((eb) =>
      eb.exists(
        eb
          .selectFrom("answers as a")
          .select(sql`1`.as("one"))
          .whereRef("a.response_uuid", "=", "responses.uuid")
          .where((aeb) => cond(aeb as never)),
      ),
    ) as QB;
  }
  if (f.actionable === false) {
    out = out.where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("answers as a")
            .select(sql`1`.as("one"))
            .whereRef("a.response_uuid", "=", "responses.uuid")
            .where(() => jsonFlagIs(db, "a.ai_insights", "$.actionable", true)),
        ),
      ),
    ) as QB;
  }
  return out as QB;
}

function filtered(db: Executor, f: ResponseFilter) {
  return applySelection(db, db.selectFrom("responses"), f);
}

export async function listResponses(db: Executor, f: ResponseFilter, limit: number, offset: number) {
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

export function findResponse(db: Executor, workspaceUuid: string, uuid: string): Promise<ResponseRow | undefined> {
  return db.selectFrom("responses").selectAll().where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", uuid).executeTakeFirst();
}

export function findResponseByUuid(db: Executor, uuid: string): Promise<ResponseRow | undefined> {
  return db.selectFrom("responses").selectAll().where("uuid", "=", uuid).executeTakeFirst();
}

export function findResponseBySession(db: Executor, sessionId: string): Promise<ResponseRow | undefined> {
  return db.selectFrom("responses").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
}

export function insertResponse(db: Executor, row: ResponseRow) {
  return db.insertInto("responses").values(row).execute();
}

export function updateResponse(db: Executor, uuid: string, patch: Partial<Omit<ResponseRow, "uuid">>) {
  return db.updateTable("responses").set(patch).where("uuid", "=", uuid).execute();
}

export function deleteResponse(db: Executor, uuid: string) {
  return db.deleteFrom("responses").where("uuid", "=", uuid).execute();
}

/** What identifies a new answer row; everything else starts empty (see `blankAnswerRow`). */
export type AnswerIdentity = Pick<AnswerRow, "uuid" | "response_uuid" | "question_uuid" | "field_key" | "response_type" | "question_text" | "position">;

/**
 * A new answer row with no value, no media and no transcription or analysis yet
 * (`value` JSON "null", statuses `not_applicable`, no follow-ups), stamped `now` (ISO 8601).
 */
export function blankAnswerRow(identity: AnswerIdentity, now: string): AnswerRow {
  return {
    ...identity,
    value: "null",
    text: null,
    audio_blob: null,
    audio_mime: null,
    file_blob: null,
    file_meta: null,
    transcription: null,
    transcription_status: "not_applicable",
    transcription_error: null,
    duration: null,
    ai_insights: null,
    analysis_engine: null,
    analysis_status: "not_applicable",
    follow_ups: "[]",
    custom_fields: "{}",
    date_created: now,
    date_updated: now,
  };
}

export function answersOf(db: Executor, responseUuids: string[]): Promise<AnswerRow[]> {
  if (!responseUuids.length) return Promise.resolve([]);
  return db.selectFrom("answers").selectAll().where("response_uuid", "in", responseUuids).orderBy("position").execute();
}

export function findAnswer(db: Executor, uuid: string): Promise<AnswerRow | undefined> {
  return db.selectFrom("answers").selectAll().where("uuid", "=", uuid).executeTakeFirst();
}

export function findAnswerOf(db: Executor, responseUuid: string, questionUuid: string): Promise<AnswerRow | undefined> {
  return db.selectFrom("answers").selectAll().where("response_uuid", "=", responseUuid).where("question_uuid", "=", questionUuid).executeTakeFirst();
}

export function insertAnswer(db: Executor, row: AnswerRow) {
  return db.insertInto("answers").values(row).execute();
}

export function updateAnswer(db: Executor, uuid: string, patch: Partial<Omit<AnswerRow, "uuid">>) {
  return db.updateTable("answers").set(patch).where("uuid", "=", uuid).execute();
}

/** Answers of a response whose transcription (waiting for the model included) or analysis is still outstanding. */
export async function countUnprocessedAnswers(db: Executor, responseUuid: string): Promise<number> {
  const r = await db
    .selectFrom("answers")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("response_uuid", "=", responseUuid)
    .where((eb) => eb.or([eb("transcription_status", "in", ["pending", "processing", "waiting_for_model"]), eb("analysis_status", "=", "pending")]))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Deletes a response's answers (their search rows go with them, by trigger). */
export function deleteAnswersOf(db: Executor, responseUuid: string) {
  return db.deleteFrom("answers").where("response_uuid", "=", responseUuid).execute();
}

/** Deletes the transcription and analysis jobs of these answers, whatever their state. */
export async function deleteJobsOfAnswers(db: Executor, answerUuids: string[]): Promise<void> {
  if (!answerUuids.length) return;
  await db
    .deleteFrom("jobs")
    .where(jsonValue(db, "payload", "$.answer_uuid"), "in", answerUuids)
    .execute();
}

/**
 * Answers whose transcription waits for the model — or, with `includeFailed`, failed — or whose
 * analysis failed (with `includeFailed`), optionally of one workspace and one response.
 */
export function answersToReprocess(db: Executor, scope: { workspaceUuid?: string; responseUuid?: string; includeFailed: boolean }): Promise<AnswerRow[]> {
  let q = db.selectFrom("answers").innerJoin("responses", "responses.uuid", "answers.response_uuid").selectAll("answers");
  if (scope.workspaceUuid !== undefined) q = q.where("responses.workspace_uuid", "=", scope.workspaceUuid);
  if (scope.responseUuid !== undefined) q = q.where("responses.uuid", "=", scope.responseUuid);
  return q
    .where((eb) =>
      eb.or([
        eb.and([
          eb("answers.audio_blob", "is not", null),
          eb("answers.transcription_status", "in", scope.includeFailed ? ["waiting_for_model", "failed"] : ["waiting_for_model"]),
        ]),
        ...(scope.includeFailed ? [eb("answers.analysis_status", "=", "failed")] : []),
      ]),
    )
    .orderBy("answers.date_created")
    .execute();
}

/** Of these answers, those with a job running now. */
export async function answersWithRunningJobs(db: Executor, answerUuids: string[]): Promise<string[]> {
  if (!answerUuids.length) return [];
  const answerOf = jsonValue<string>(db, "payload", "$.answer_uuid");
  const rows = await db.selectFrom("jobs").select(answerOf.as("answer_uuid")).where("state", "=", "running").where(answerOf, "in", answerUuids).execute();
  return rows.map((r) => r.answer_uuid);
}

/** Deletes an answer's jobs that are not running (queued, waiting, done or failed). */
export async function deleteIdleJobsOfAnswer(db: Executor, answerUuid: string): Promise<void> {
  await db
    .deleteFrom("jobs")
    .where("state", "!=", "running")
    .where(jsonValue(db, "payload", "$.answer_uuid"), "=", answerUuid)
    .execute();
}
