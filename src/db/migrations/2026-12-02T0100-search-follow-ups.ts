/**
 * The search index covers follow-up answers (issue 26): an answer's indexed body is its typed text,
 * its transcript, and the typed answer and transcript of each of its follow-ups (`follow_ups` JSON,
 * `[{question, answer, transcription?}]`; the follow-up *questions* are the server's own words and
 * stay out). Before, words said only in a follow-up were found by the topic filter but not by
 * `search`.
 *
 * SQLite: the contentless FTS5 table of 2026-11-28T0300 is emptied (`'delete-all'`, which keeps its
 * secure-delete setting) and refilled from `answers`; the triggers are created again with the new
 * body and fire on `follow_ups` too. The `'delete'` command gets exactly the body the insert
 * indexed (the same expression over the old row; `json_each` walks the array in order).
 * PostgreSQL: `answers_search_sync()` is replaced with the same body, its update trigger fires on
 * `follow_ups` too, and every `answers_search` row is recomputed.
 * Frozen: never edit, add a new migration instead.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/** SQLite: the indexed body of the answer row `r` (`new`, `old` or a table alias). */
function sqliteBody(r: string): string {
  const followUps = `(SELECT group_concat(coalesce(json_extract(f.value, '$.answer'), '') || ' ' || coalesce(json_extract(f.value, '$.transcription'), ''), ' ') FROM json_each(${r}.follow_ups) AS f)`;
  return `coalesce(${r}.text, '') || ' ' || coalesce(${r}.transcription, '') || ' ' || coalesce(${followUps}, '')`;
}

/** PostgreSQL: the text (before `to_tsvector`) of the answer row `r`, ASCII punctuation as spaces. */
function postgresBody(r: string): string {
  const followUps = `(SELECT string_agg(coalesce(f->>'answer', '') || ' ' || coalesce(f->>'transcription', ''), ' ') FROM jsonb_array_elements(${r}.follow_ups::jsonb) AS f)`;
  return `regexp_replace(coalesce(${r}.text, '') || ' ' || coalesce(${r}.transcription, '') || ' ' || coalesce(${followUps}, ''), '[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+', ' ', 'g')`;
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql
      .raw(`CREATE OR REPLACE FUNCTION answers_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO answers_search (answer_uuid, response_uuid, body)
    VALUES (NEW.uuid, NEW.response_uuid, to_tsvector('earshot_search', ${postgresBody("NEW")}))
    ON CONFLICT (answer_uuid) DO UPDATE SET response_uuid = EXCLUDED.response_uuid, body = EXCLUDED.body;
    RETURN NULL;
  END $$`)
      .execute(db);
    await sql`DROP TRIGGER IF EXISTS answers_search_au ON answers`.execute(db);
    await sql`CREATE TRIGGER answers_search_au AFTER UPDATE OF text, transcription, follow_ups ON answers FOR EACH ROW EXECUTE FUNCTION answers_search_sync()`.execute(
      db,
    );
    await sql
      .raw(`UPDATE answers_search AS s SET body = to_tsvector('earshot_search', ${postgresBody("a")}) FROM answers AS a WHERE a.uuid = s.answer_uuid`)
      .execute(db);
    return;
  }
  await sql`DROP TRIGGER IF EXISTS answers_fts_ai`.execute(db);
  await sql`DROP TRIGGER IF EXISTS answers_fts_au`.execute(db);
  await sql`DROP TRIGGER IF EXISTS answers_fts_ad`.execute(db);
  await sql`INSERT INTO answers_fts(answers_fts) VALUES ('delete-all')`.execute(db);
  await sql.raw(`INSERT INTO answers_fts(rowid, body, response_uuid) SELECT a.rowid, ${sqliteBody("a")}, a.response_uuid FROM answers AS a`).execute(db);
  await sql
    .raw(`CREATE TRIGGER answers_fts_ai AFTER INSERT ON answers BEGIN
    INSERT INTO answers_fts(rowid, body, response_uuid) VALUES (new.rowid, ${sqliteBody("new")}, new.response_uuid);
  END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER answers_fts_au AFTER UPDATE OF text, transcription, follow_ups ON answers BEGIN
    INSERT INTO answers_fts(answers_fts, rowid, body, response_uuid) VALUES ('delete', old.rowid, ${sqliteBody("old")}, old.response_uuid);
    INSERT INTO answers_fts(rowid, body, response_uuid) VALUES (new.rowid, ${sqliteBody("new")}, new.response_uuid);
  END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER answers_fts_ad AFTER DELETE ON answers BEGIN
    INSERT INTO answers_fts(answers_fts, rowid, body, response_uuid) VALUES ('delete', old.rowid, ${sqliteBody("old")}, old.response_uuid);
  END`)
    .execute(db);
}
