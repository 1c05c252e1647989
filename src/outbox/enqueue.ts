/**
 * @module outbox/enqueue
 * Writes a webhook event into the transactional outbox (DESIGN §8): one `outbox_events` row (its
 * uuid is the stable `webhook-id`) and one pending delivery per subscribed, enabled webhook —
 * inside the caller's transaction, so the event exists exactly when the change that caused it
 * commits.
 */
import type { Transaction } from "kysely";
import { nowIso } from "../clock.ts";
import type { Database } from "../db/schema.ts";
import { subscribedWebhooks } from "../modules/webhooks/repository.ts";

/** The delivered body (DESIGN §8). */
export type EventBody = { type: string; timestamp: string; data: Record<string, unknown> };

/**
 * Queues `type` for every webhook of the workspace (or of `linkUuid`) subscribed to it.
 * @returns the event id (`msg_…`), or null when nobody is subscribed (nothing is stored)
 */
export async function enqueueEvent(
  trx: Transaction<Database>,
  e: { workspaceUuid: string; linkUuid: string; type: string; data: Record<string, unknown> },
): Promise<string | null> {
  const hooks = await subscribedWebhooks(trx, e.workspaceUuid, e.linkUuid, e.type);
  const matching = hooks.filter((h) => h.events.split(" ").includes(e.type));
  if (!matching.length) return null;
  const now = nowIso();
  const id = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const body: EventBody = { type: e.type, timestamp: now, data: e.data };
  await trx.insertInto("outbox_events").values({ uuid: id, workspace_uuid: e.workspaceUuid, type: e.type, payload: JSON.stringify(body), date_created: now }).execute();
  await trx
    .insertInto("webhook_deliveries")
    .values(
      matching.map((h) => ({
        uuid: crypto.randomUUID(),
        event_uuid: id,
        webhook_uuid: h.uuid,
        state: "pending" as const,
        next_attempt_at: now,
        date_created: now,
        date_updated: now,
      })),
    )
    .execute();
  return id;
}
