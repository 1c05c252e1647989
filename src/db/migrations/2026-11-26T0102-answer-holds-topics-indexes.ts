/**
 * Two more indexes for the dashboard and the filters (issue 11), measured with
 * bench/console-data.ts: whether an answer holds something (value, text, recording or file) as an
 * index expression — the partial index of 2026-11-26T0101 still made SQLite read every row, as its
 * WHERE names columns it does not hold — and each answer's `key_topics` (topic counts and the
 * `topic=` filter read the index, not the rows). `stats/repository.ts` (ANSWERED) and
 * `db/json.ts` write the same expressions.
 * Frozen: never edit, add a new migration instead.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS answers_response_answered`.execute(db);
  await sql`CREATE INDEX answers_response_holds ON answers (response_uuid, question_uuid, (value <> 'null' OR text IS NOT NULL OR audio_blob IS NOT NULL OR file_blob IS NOT NULL))`.execute(
    db,
  );
  if (isPostgres(db)) {
    // A GIN index would serve `@>` containment, which the filters do not use; the topics filter
    // tests `IS NOT NULL` on the same expression as SQLite's index (db/json.ts).
    await sql`CREATE INDEX answers_response_topics ON answers (response_uuid, ((ai_insights::jsonb) #>> '{key_topics}'))`.execute(db);
  } else {
    await sql`CREATE INDEX answers_response_topics ON answers (response_uuid, json_extract(ai_insights, '$.key_topics'))`.execute(db);
  }
}
