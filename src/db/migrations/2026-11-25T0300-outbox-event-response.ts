/**
 * Erasure reaches the outbox (issue 9 item 8, docs/webhooks.md "Erased responses"): every
 * response event names its response (`response_uuid`, backfilled from the stored payload), so
 * erasing a response can find, redact and cancel its events; `erased_at` marks a redacted event,
 * whose redelivery answers 410 `RESPONSE_ERASED`.
 * Frozen: never edit, add a new migration instead.
 */
import { sql, type Kysely } from "kysely";
import { isPostgres } from "../dialect.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("outbox_events").addColumn("response_uuid", "text").execute();
  await db.schema.alterTable("outbox_events").addColumn("erased_at", "text").execute();
  // No PostgreSQL database predates this migration (migrate-to-postgres copies the column), so
  // there is nothing to backfill there.
  if (!isPostgres(db))
    await sql`UPDATE outbox_events SET response_uuid = json_extract(payload, '$.data.response.uuid')
    WHERE json_valid(payload) AND json_type(payload, '$.data.response.uuid') = 'text'`.execute(db);
  await db.schema.createIndex("outbox_events_response").on("outbox_events").columns(["response_uuid"]).execute();
}
