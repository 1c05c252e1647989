/**
 * One counter for "the definitions changed": raised by triggers on every insert and delete of
 * `workspaces`, `links`, `questions` and `api_tokens`, every update of the first three, and every
 * update of the API-key columns that authentication reads (not `last_used_at`, which usage
 * accounting writes all the time). Readers on every request (authentication, the intake's link
 * lookup) keep what they read in memory and read this one row instead, re-reading the rest only
 * when it moved (src/db/definition-cache.ts) — any writer, in any process or node, raises it in
 * the same transaction as its change. A later migration that rebuilds one of these tables (SQLite's
 * create-copy-drop-rename) must create its triggers again: the counter's coverage test in
 * src/db/definition-cache.test.ts fails otherwise. Frozen: never edit, add a new migration.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/** The API-key columns authentication and the audit log read (DESIGN §5). */
const TOKEN_COLUMNS = "workspace_uuid, name, key_hash, scopes, revoked_at";
const TABLES = ["workspaces", "links", "questions"] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("definition_version")
    .addColumn("id", "integer", (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn("version", "bigint", (c) => c.notNull())
    .execute();
  await sql`INSERT INTO definition_version (id, version) VALUES (1, 0)`.execute(db);
  const bump = "UPDATE definition_version SET version = version + 1 WHERE id = 1";
  if (isPostgres(db)) {
    await sql.raw(`CREATE FUNCTION definition_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${bump}; RETURN NULL; END $$`).execute(db);
    // Once per statement: a statement changing many rows raises the counter once.
    for (const table of TABLES) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_definition_version AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION definition_version_bump()`,
        )
        .execute(db);
    }
    await sql
      .raw(
        `CREATE TRIGGER api_tokens_definition_version AFTER INSERT OR DELETE OR UPDATE OF ${TOKEN_COLUMNS} ON api_tokens FOR EACH STATEMENT EXECUTE FUNCTION definition_version_bump()`,
      )
      .execute(db);
    // TRUNCATE fires no row or statement trigger of the above.
    for (const table of [...TABLES, "api_tokens"]) {
      await sql
        .raw(`CREATE TRIGGER ${table}_definition_version_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION definition_version_bump()`)
        .execute(db);
    }
    return;
  }
  for (const table of TABLES) {
    for (const event of ["INSERT", "UPDATE", "DELETE"]) {
      await sql.raw(`CREATE TRIGGER ${table}_definition_version_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN ${bump}; END`).execute(db);
    }
  }
  for (const event of ["INSERT", "DELETE", `UPDATE OF ${TOKEN_COLUMNS}`]) {
    const name = `api_tokens_definition_version_${event.split(" ")[0]!.toLowerCase()}`;
    await sql.raw(`CREATE TRIGGER ${name} AFTER ${event} ON api_tokens BEGIN ${bump}; END`).execute(db);
  }
}
