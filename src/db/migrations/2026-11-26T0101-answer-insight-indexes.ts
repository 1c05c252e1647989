/**
 * Indexes for the response filters and dashboard (issue 11), measured with bench/console-data.ts
 * (10,000 responses): per answer, its response, its sentiment and its actionable flag read from
 * `ai_insights` (expression indexes: the filters' EXISTS probes and the sentiment counts read the
 * index only, no JSON is parsed), and the values of the answer types that have a distribution
 * (a partial covering index, so value counts never read transcripts), and which answers hold
 * something (a partial index for the "answered" counts). SQLite syntax stays here;
 * `db/json.ts` writes the same expressions.
 * Frozen: never edit, add a new migration instead.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/** The answer types the dashboard counts per value (stats/repository.ts DISTRIBUTED_TYPES). */
const DISTRIBUTED_TYPES_SQL = "('multiple_choice', 'image_choice', 'rating', 'yes_no', 'number')";
/** An answer that holds something (stats/repository.ts ANSWERED, the same text). */
const ANSWERED_SQL = "(value <> 'null' OR text IS NOT NULL OR audio_blob IS NOT NULL OR file_blob IS NOT NULL)";

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    // The expressions `db/json.ts` writes on PostgreSQL.
    await sql`CREATE INDEX answers_response_sentiment ON answers (response_uuid, ((ai_insights::jsonb) #>> '{sentiment}'))`.execute(db);
    await sql`CREATE INDEX answers_response_actionable ON answers (response_uuid, ((ai_insights::jsonb) #>> '{actionable}'))`.execute(db);
  } else {
    await sql`CREATE INDEX answers_response_sentiment ON answers (response_uuid, json_extract(ai_insights, '$.sentiment'))`.execute(db);
    await sql`CREATE INDEX answers_response_actionable ON answers (response_uuid, json_extract(ai_insights, '$.actionable'))`.execute(db);
  }
  await sql
    .raw(`CREATE INDEX answers_response_values ON answers (response_uuid, question_uuid, response_type, value) WHERE response_type IN ${DISTRIBUTED_TYPES_SQL}`)
    .execute(db);
  await sql.raw(`CREATE INDEX answers_response_answered ON answers (response_uuid, question_uuid) WHERE ${ANSWERED_SQL}`).execute(db);
}
