/**
 * Response filters, dashboards and live updates (issue 11):
 * - `responses_link_created`: a link's responses by start time (the dashboard's "started" counts
 *   and the date range of started responses; `responses_link_submitted` serves completed ones).
 * - `workspace_changes`: one counter per workspace, raised by triggers on every insert, update or
 *   delete of its links, responses and answers (a new response, a finished transcription, an
 *   erasure, a corrected insight, an edited link). List and stats endpoints derive their `ETag`
 *   from it, so a poll that finds nothing new costs one primary-key read and answers 304.
 *   Triggers, not application code, so no write path can forget it. SQLite-only syntax stays here.
 * Frozen: never edit, add a new migration instead.
 */
import { type Kysely, sql } from "kysely";

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
      .raw(`CREATE TRIGGER answers_change_${event.toLowerCase()} AFTER ${event} ON answers BEGIN ${bump(`SELECT workspace_uuid, 1 FROM responses WHERE uuid = ${row}.response_uuid`)} END`)
      .execute(db);
  }
}
