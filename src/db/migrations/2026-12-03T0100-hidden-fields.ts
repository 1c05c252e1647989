/**
 * Hidden fields (issue 25; DESIGN §13; docs/api.md "Hidden fields"): each response keeps the values
 * its intake URL carried for the link's `settings.hidden_fields` as `responses.hidden`, a JSON object
 * of strings (`'{}'` when none, the value of every existing row).
 *
 * Search covers them like answers' text (db/search.ts), in an index of their own keyed by the
 * response: SQLite a contentless FTS5 table `responses_hidden_fts` (rowid = the response's rowid,
 * secure-delete, the same tokenizer as `answers_fts`), PostgreSQL a `tsvector` per response in
 * `responses_hidden_search` (GIN, `earshot_search`, ASCII punctuation as spaces as for answers).
 * Both are kept by triggers on insert, update of `hidden` and delete (erasure: the words leave the
 * index at once). Only responses with a value get an index row.
 * Frozen: never edit, add a new migration instead.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/** SQLite: the indexed body of the response row `r`: its hidden values, space-separated. */
function sqliteBody(r: string): string {
  return `coalesce((SELECT group_concat(h.value, ' ') FROM json_each(${r}.hidden) AS h), '')`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("responses")
    .addColumn("hidden", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
  if (isPostgres(db)) {
    await sql`CREATE TABLE responses_hidden_search (
      response_uuid text PRIMARY KEY REFERENCES responses(uuid) ON DELETE CASCADE,
      body tsvector NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX responses_hidden_search_body ON responses_hidden_search USING gin (body)`.execute(db);
    await sql`CREATE FUNCTION responses_hidden_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM responses_hidden_search WHERE response_uuid = NEW.uuid;
    IF NEW.hidden <> '{}' THEN
      INSERT INTO responses_hidden_search (response_uuid, body)
      VALUES (NEW.uuid, to_tsvector('earshot_search', regexp_replace(
        (SELECT coalesce(string_agg(h.value, ' '), '') FROM jsonb_each_text(NEW.hidden::jsonb) AS h),
        '[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+', ' ', 'g')));
    END IF;
    RETURN NULL;
  END $$`.execute(db);
    await sql`CREATE TRIGGER responses_hidden_search_ai AFTER INSERT ON responses FOR EACH ROW EXECUTE FUNCTION responses_hidden_search_sync()`.execute(db);
    await sql`CREATE TRIGGER responses_hidden_search_au AFTER UPDATE OF hidden ON responses FOR EACH ROW EXECUTE FUNCTION responses_hidden_search_sync()`.execute(
      db,
    );
    return;
  }
  await sql`CREATE VIRTUAL TABLE responses_hidden_fts USING fts5(body, response_uuid UNINDEXED, content = '', contentless_unindexed = 1, tokenize = 'unicode61 remove_diacritics 2')`.execute(
    db,
  );
  await sql`INSERT INTO responses_hidden_fts(responses_hidden_fts, rank) VALUES ('secure-delete', 1)`.execute(db);
  await sql
    .raw(`CREATE TRIGGER responses_hidden_fts_ai AFTER INSERT ON responses WHEN new.hidden <> '{}' BEGIN
    INSERT INTO responses_hidden_fts(rowid, body, response_uuid) VALUES (new.rowid, ${sqliteBody("new")}, new.uuid);
  END`)
    .execute(db);
  // One update trigger with both steps in order (SQLite fires several triggers of one event in no set order).
  await sql
    .raw(`CREATE TRIGGER responses_hidden_fts_au AFTER UPDATE OF hidden ON responses BEGIN
    INSERT INTO responses_hidden_fts(responses_hidden_fts, rowid, body, response_uuid)
      SELECT 'delete', old.rowid, ${sqliteBody("old")}, old.uuid WHERE old.hidden <> '{}';
    INSERT INTO responses_hidden_fts(rowid, body, response_uuid)
      SELECT new.rowid, ${sqliteBody("new")}, new.uuid WHERE new.hidden <> '{}';
  END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER responses_hidden_fts_ad AFTER DELETE ON responses WHEN old.hidden <> '{}' BEGIN
    INSERT INTO responses_hidden_fts(responses_hidden_fts, rowid, body, response_uuid) VALUES ('delete', old.rowid, ${sqliteBody("old")}, old.uuid);
  END`)
    .execute(db);
}
