/**
 * @module outbox/enqueue
 * Writes a webhook event into the transactional outbox (DESIGN §8): one `outbox_events` row (its
 * uuid is the stable `webhook-id`) and one pending delivery per subscribed, enabled webhook —
 * inside the caller's transaction, so the event exists exactly when the change that caused it
 * commits. The outbox carries the payload and the targets it is given: which webhooks receive an
 * event is decided by the caller (`src/modules/webhooks/events.ts`), not here.
 */
import type { Transaction } from "kysely";
import { systemClock, type Clock } from "../clock.ts";
import type { Database } from "../db/schema.ts";
import { insertDelivery } from "./repository.ts";

/** The delivered body (DESIGN §8). */
export type EventBody = { type: string; timestamp: string; data: Record<string, unknown> };

/** A new event id (`msg_` + 32 hex digits), the `webhook-id` of every attempt. */
function newEventId(): string {
  return `msg_${crypto.randomUUID().replaceAll("-", "")}`;
}

async function insertEvent(trx: Transaction<Database>, workspaceUuid: string, type: string, data: Record<string, unknown>, clock: Clock): Promise<string> {
  const now = clock.nowIso();
  const id = newEventId();
  const body: EventBody = { type, timestamp: now, data };
  // A response event names its response, so erasing the response finds and redacts it.
  const responseUuid = (data.response as { uuid?: unknown } | undefined)?.uuid;
  await trx
    .insertInto("outbox_events")
    .values({
      uuid: id,
      workspace_uuid: workspaceUuid,
      type,
      payload: JSON.stringify(body),
      response_uuid: typeof responseUuid === "string" ? responseUuid : null,
      erased_at: null,
      date_created: now,
    })
    .execute();
  return id;
}

/**
 * Queues an event for the given webhooks: one event row and one pending delivery per webhook.
 * @param e.webhookUuids the targets, resolved by the caller; none stores nothing
 * @returns the event id (`msg_…`), or null when there is no target (nothing is stored)
 */
export async function enqueueEvent(
  trx: Transaction<Database>,
  e: { workspaceUuid: string; type: string; data: Record<string, unknown>; webhookUuids: readonly string[] },
  clock: Clock = systemClock,
): Promise<string | null> {
  if (!e.webhookUuids.length) return null;
  const id = await insertEvent(trx, e.workspaceUuid, e.type, e.data, clock);
  for (const uuid of e.webhookUuids) await insertDelivery(trx, id, uuid, clock);
  return id;
}

/**
 * Queues an event for one webhook only, whatever it subscribes to (`webhook.test`).
 * @returns the event id and the delivery uuid
 */
export async function enqueueEventForWebhook(
  trx: Transaction<Database>,
  e: { workspaceUuid: string; webhookUuid: string; type: string; data: Record<string, unknown> },
  clock: Clock = systemClock,
): Promise<{ eventId: string; deliveryUuid: string }> {
  const eventId = await insertEvent(trx, e.workspaceUuid, e.type, e.data, clock);
  return { eventId, deliveryUuid: await insertDelivery(trx, eventId, e.webhookUuid, clock) };
}
