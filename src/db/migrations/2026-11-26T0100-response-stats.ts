/**
 * Response filters, dashboards and live updates (issue 11):
 * - `responses_link_created`: a link's responses by start time (the dashboard's "started" counts
 *   and the date range of started responses; `responses_link_submitted` serves completed ones).
 * - `workspace_changes`: one counter per workspace, raised by triggers on every insert, update or
 *   delete of its links, responses and answers (a new response, a finished transcription, an
 *   erasure, a corrected insight, an edited link). List and stats endpoints derive their `ETag`
 *   from it, so a poll that finds nothing new costs one primary-key read and answers 304.
 *   Triggers, not application code, so no write path can forget it. SQLite-only syntax stays here;
 *   PostgreSQL gets the same counters from two plpgsql trigger functions.
 * Frozen: never edit, add a new migration instead.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/** `select` must end in a WHERE clause (SQLite's rule for an upsert from a SELECT). */
const bump = (select: string) =>
  `INSERT INTO workspace_changes (workspace_uuid, version) ${select} ON CONFLICT (workspace_uuid) DO UPDATE SET version = version + 1;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("responses_link_created").on("responses").columns(["link_uuid", "date_created"]).execute();
  await db.schema
    .createTable("workspace_changes")
    .addColumn("workspace_uuid", "text", (c) => c.primaryKey())
    .addColumn("version", "integer", (c) => c.notNull())
    .execute();
  if (isPostgres(db)) return createPostgresTriggers(db);
  for (const [table, event, row] of [
    ["responses", "INSERT", "NEW"],
    ["responses", "UPDATE", "NEW"],
    ["responses", "DELETE", "OLD"],
    ["links", "INSERT", "NEW"],
    ["links", "UPDATE", "NEW"],
    ["links", "DELETE", "OLD"],
  ] as const) {
    await sql
      .raw(`CREATE TRIGGER ${table}_change_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN ${bump(`SELECT ${row}.workspace_uuid, 1 WHERE true`)} END`)
      .execute(db);
  }
  for (const [event, row] of [
    ["INSERT", "NEW"],
    ["UPDATE", "NEW"],
    ["DELETE", "OLD"],
  ] as const) {
    // An answer's workspace is its response's; when the response is already gone (erasure), its
    // own trigger has counted the change.
    await sql
      .raw(
        `CREATE TRIGGER answers_change_${event.toLowerCase()} AFTER ${event} ON answers BEGIN ${bump(`SELECT workspace_uuid, 1 FROM responses WHERE uuid = ${row}.response_uuid`)} END`,
      )
      .execute(db);
  }
}

/** The same counters on PostgreSQL: one trigger function for links and responses, one for answers. */
async function createPostgresTriggers(db: Kysely<unknown>): Promise<void> {
  const bumpSql = `IF ws IS NOT NULL THEN
      INSERT INTO workspace_changes (workspace_uuid, version) VALUES (ws, 1)
      ON CONFLICT (workspace_uuid) DO UPDATE SET version = workspace_changes.version + 1;
    END IF;
    RETURN NULL;`;
  await sql
    .raw(`CREATE FUNCTION workspace_changes_bump() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE ws text;
  BEGIN
    IF TG_OP = 'DELETE' THEN ws := OLD.workspace_uuid; ELSE ws := NEW.workspace_uuid; END IF;
    ${bumpSql}
  END $$`)
    .execute(db);
  // An answer's workspace is its response's; when the response is already gone (erasure), its
  // own trigger has counted the change.
  await sql
    .raw(`CREATE FUNCTION workspace_changes_bump_answer() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE ws text;
  BEGIN
    IF TG_OP = 'DELETE' THEN
      SELECT workspace_uuid INTO ws FROM responses WHERE uuid = OLD.response_uuid;
    ELSE
      SELECT workspace_uuid INTO ws FROM responses WHERE uuid = NEW.response_uuid;
    END IF;
    ${bumpSql}
  END $$`)
    .execute(db);
  for (const table of ["responses", "links", "answers"] as const) {
    const fn = table === "answers" ? "workspace_changes_bump_answer" : "workspace_changes_bump";
    for (const event of ["INSERT", "UPDATE", "DELETE"] as const) {
      await sql.raw(`CREATE TRIGGER ${table}_change_${event.toLowerCase()} AFTER ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}()`).execute(db);
    }
  }
}
