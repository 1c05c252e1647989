/**
 * Indexes for webhook delivery logs (DESIGN §8): attempts by delivery (cascade deletes, the
 * delivery detail), deliveries by event (cascades, redelivery), events by age (pruning).
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("webhook_attempts_delivery").on("webhook_attempts").columns(["delivery_uuid", "attempt"]).execute();
  await db.schema.createIndex("webhook_deliveries_event").on("webhook_deliveries").columns(["event_uuid"]).execute();
  await db.schema.createIndex("outbox_events_created").on("outbox_events").columns(["date_created"]).execute();
}
