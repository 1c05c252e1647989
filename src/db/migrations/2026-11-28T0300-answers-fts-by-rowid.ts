/**
 * The answers' search index keyed by the answer's rowid (issue 14, intake write path). SQLite only;
 * on PostgreSQL this migration does nothing (its search is built by the PostgreSQL migrations).
 *
 * Before: a regular FTS5 table holding a second copy of each answer's text with `answer_uuid` and
 * `response_uuid` as UNINDEXED columns, and update/delete triggers matching `answer_uuid` — a
 * full scan of the index's content table on every corrected answer, finished transcription,
 * erasure and purge (~1.2 ms per delete at 6,000 rows, growing with the table).
 * After: a contentless FTS5 table (`content=''`) whose rowid is the answer's rowid. It keeps no
 * copy of the text; only `response_uuid` is stored (`contentless_unindexed=1`, SQLite ≥ 3.47; Bun
 * ships 3.54) for the search subquery in `db/search.ts`, whose SQL is unchanged. The triggers
 * remove an answer's words with FTS5's `'delete'` command, given the rowid and the old text the
 * insert trigger indexed (the same expression), so with secure-delete (set again below) the words
 * leave the index segments at once (erasure, docs/api.md). An insert costs about a third of before,
 * a delete about a third (measured with 6,000 rows; docs/performance.md "Intake").
 *
 * `answers.rowid` is not an INTEGER PRIMARY KEY alias; SQLite keeps such rowids across `VACUUM`
 * and `VACUUM INTO` (`earshot backup`) for a table that has an index, which `answers` has (its
 * primary key and unique constraint). No code inserts answers with `OR REPLACE` (which would skip
 * the delete trigger), and nothing may write `answers.text`/`transcription` with the triggers off:
 * the `'delete'` command must get exactly the text that was indexed.
 *
 * The old table's pages are zeroed when it is dropped (`PRAGMA secure_delete = ON`, db/client.ts).
 * Frozen: never edit, add a new migration instead.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`DROP TRIGGER IF EXISTS answers_fts_ai`.execute(db);
  await sql`DROP TRIGGER IF EXISTS answers_fts_au`.execute(db);
  await sql`DROP TRIGGER IF EXISTS answers_fts_ad`.execute(db);
  await sql`DROP TABLE IF EXISTS answers_fts`.execute(db);
  await sql`CREATE VIRTUAL TABLE answers_fts USING fts5(body, response_uuid UNINDEXED, content = '', contentless_unindexed = 1, tokenize = 'unicode61 remove_diacritics 2')`.execute(
    db,
  );
  await sql`INSERT INTO answers_fts(answers_fts, rank) VALUES ('secure-delete', 1)`.execute(db);
  await sql`INSERT INTO answers_fts(rowid, body, response_uuid)
    SELECT rowid, coalesce(text, '') || ' ' || coalesce(transcription, ''), response_uuid FROM answers`.execute(db);
  await sql`CREATE TRIGGER answers_fts_ai AFTER INSERT ON answers BEGIN
    INSERT INTO answers_fts(rowid, body, response_uuid)
    VALUES (new.rowid, coalesce(new.text, '') || ' ' || coalesce(new.transcription, ''), new.response_uuid);
  END`.execute(db);
  await sql`CREATE TRIGGER answers_fts_au AFTER UPDATE OF text, transcription ON answers BEGIN
    INSERT INTO answers_fts(answers_fts, rowid, body, response_uuid)
    VALUES ('delete', old.rowid, coalesce(old.text, '') || ' ' || coalesce(old.transcription, ''), old.response_uuid);
    INSERT INTO answers_fts(rowid, body, response_uuid)
    VALUES (new.rowid, coalesce(new.text, '') || ' ' || coalesce(new.transcription, ''), new.response_uuid);
  END`.execute(db);
  await sql`CREATE TRIGGER answers_fts_ad AFTER DELETE ON answers BEGIN
    INSERT INTO answers_fts(answers_fts, rowid, body, response_uuid)
    VALUES ('delete', old.rowid, coalesce(old.text, '') || ' ' || coalesce(old.transcription, ''), old.response_uuid);
  END`.execute(db);
}
