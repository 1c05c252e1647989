/**
 * Fair claiming (docs/webhooks.md "Fairness") reads each webhook's first due deliveries: an index
 * by webhook, state and due time makes that a short range scan per webhook, whatever the backlog.
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("webhook_deliveries_webhook_due").on("webhook_deliveries").columns(["webhook_uuid", "state", "next_attempt_at"]).execute();
}
