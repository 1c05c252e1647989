/**
 * @module stats/repository
 * Kysely aggregates behind a link's dashboard (issue 11): every number is a GROUP BY in SQL over
 * the link's responses in a date range; nothing loads the responses themselves. JSON inside
 * answers is read through `db/json.ts`. Ranges: `since` inclusive, `until` exclusive, stored
 * timestamps; "completed" numbers use `submitted_at`, "started" ones `date_created`.
 */
import { sql } from "kysely";
import type { Executor } from "../../db/schema.ts";
import { jsonElements, jsonFlagIs, jsonValue } from "../../db/json.ts";
import { answered } from "../responses/repository.ts";

export type StatsRange = { linkUuid: string; since?: string; until?: string };

/** Answer types whose values have a distribution. */
export const DISTRIBUTED_TYPES = ["multiple_choice", "image_choice", "rating", "yes_no", "number"];
/**
 * `response_type IN (…)` with literals, written exactly as the partial index
 * `answers_response_values` (migration 2026-11-26T0101) says it, so the value counts use it.
 */
const isDistributed = sql<boolean>`${sql.ref("a.response_type")} IN ${sql.raw(`(${DISTRIBUTED_TYPES.map((t) => `'${t}'`).join(", ")})`)}`;

/** `UTC day` of a stored timestamp column, `YYYY-MM-DD`. */
const dayOf = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 10)`;

/** Completed responses of the link submitted in the range (aliased `r`). */
function completedIn(db: Executor, f: StatsRange) {
  let q = db.selectFrom("responses as r").where("r.link_uuid", "=", f.linkUuid).where("r.status", "=", "completed");
  if (f.since !== undefined) q = q.where("r.submitted_at", ">=", f.since);
  if (f.until !== undefined) q = q.where("r.submitted_at", "<", f.until);
  return q;
}

/** Responses of the link started in the range (aliased `r`). */
function startedIn(db: Executor, f: StatsRange) {
  let q = db.selectFrom("responses as r").where("r.link_uuid", "=", f.linkUuid);
  if (f.since !== undefined) q = q.where("r.date_created", ">=", f.since);
  if (f.until !== undefined) q = q.where("r.date_created", "<", f.until);
  return q;
}

/** Started per UTC day, with how many of them are completed now. */
export function startedByDay(db: Executor, f: StatsRange) {
  return startedIn(db, f)
    .select((eb) => [
      dayOf("r.date_created").as("day"),
      eb.fn.countAll<number>().as("started"),
      eb.fn.sum<number>(eb.case().when("r.status", "=", "completed").then(1).else(0).end()).as("completed_since"),
    ])
    .groupBy(dayOf("r.date_created"))
    .execute();
}

/** Completed (submitted) per UTC day. */
export function completedByDay(db: Executor, f: StatsRange) {
  return completedIn(db, f)
    .select((eb) => [dayOf("r.submitted_at").as("day"), eb.fn.countAll<number>().as("completed")])
    .groupBy(dayOf("r.submitted_at"))
    .execute();
}

/**
 * How many completed responses in the range answered each of `questionUuids` (value, text,
 * recording or file); for the other questions the value counts give it.
 */
export function answeredByQuestion(db: Executor, f: StatsRange, questionUuids: string[]) {
  if (!questionUuids.length) return Promise.resolve([]);
  return completedIn(db, f)
    .innerJoin("answers as a", "a.response_uuid", "r.uuid")
    .where("a.question_uuid", "in", questionUuids)
    .where(answered(db))
    .select((eb) => ["a.question_uuid", eb.fn.countAll<number>().as("n")])
    .groupBy("a.question_uuid")
    .execute();
}

/**
 * Answers per question and stored JSON value (`9`, `true`, `"Pro"`, `["Search","Export"]`) for the
 * distributed types: grouped on the value's text, read from the partial covering index
 * `answers_response_values`, no JSON parsed in SQL (a multi-select answer's array is one group;
 * the caller splits it into its options).
 */
export function valueCounts(db: Executor, f: StatsRange) {
  return completedIn(db, f)
    .innerJoin("answers as a", "a.response_uuid", "r.uuid")
    .where(isDistributed)
    .where("a.value", "<>", "null")
    .select((eb) => ["a.question_uuid", "a.value", eb.fn.countAll<number>().as("n")])
    .groupBy(["a.question_uuid", "a.value"])
    .execute();
}

/**
 * Analysed answers with `sentiment` per UTC day (of the response's submission). One query per
 * sentiment: with the sentiment in the WHERE clause the expression index answers it alone.
 */
export function sentimentByDay(db: Executor, f: StatsRange, sentiment: "positive" | "neutral" | "negative") {
  return completedIn(db, f)
    .innerJoin("answers as a", "a.response_uuid", "r.uuid")
    .where(jsonValue<string>(db, "a.ai_insights", "$.sentiment"), "=", sql.lit(sentiment))
    .select((eb) => [dayOf("r.submitted_at").as("day"), eb.fn.countAll<number>().as("n")])
    .groupBy(dayOf("r.submitted_at"))
    .execute();
}

/** The most frequent key topics (lower-cased), counted in responses. */
export function topTopics(db: Executor, f: StatsRange, limit: number) {
  const topic = sql<string>`lower(jt.value)`;
  return (
    completedIn(db, f)
      .innerJoin("answers as a", "a.response_uuid", "r.uuid")
      .innerJoin(jsonElements(db, "a.ai_insights", "$.key_topics").as("jt"), (join) => join.onTrue())
      // Read from the topics expression index (migration 2026-11-26T0102), never the answer rows.
      .where(jsonValue(db, "a.ai_insights", "$.key_topics"), "is not", null)
      .where(sql`jt.type`, "=", "text")
      .select((eb) => [topic.as("topic"), eb.fn.count<number>("r.uuid").distinct().as("n")])
      .groupBy(topic)
      .orderBy("n", "desc")
      .orderBy(topic)
      .limit(limit)
      .execute()
  );
}

/** The latest actionable answers of completed responses in the range, newest first. */
export function latestActionable(db: Executor, f: StatsRange, limit: number) {
  return completedIn(db, f)
    .innerJoin("answers as a", "a.response_uuid", "r.uuid")
    .where(() => jsonFlagIs(db, "a.ai_insights", "$.actionable", true))
    .select(["a.uuid", "a.response_uuid", "a.question_uuid", "a.field_key", "a.text", "a.transcription", "a.ai_insights", "r.submitted_at"])
    .orderBy("r.submitted_at", "desc")
    .orderBy("a.position")
    .limit(limit)
    .execute();
}
