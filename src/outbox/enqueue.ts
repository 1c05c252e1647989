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
import { insertDelivery } from "./repository.ts";

/** The delivered body (DESIGN §8). */
export type EventBody = { type: string; timestamp: string; data: Record<string, unknown> };

/** A new event id (`msg_` + 32 hex digits), the `webhook-id` of every attempt. */
function newEventId(): string {
  return `msg_${crypto.randomUUID().replaceAll("-", "")}`;
}

async function insertEvent(trx: Transaction<Database>, workspaceUuid: string, type: string, data: Record<string, unknown>): Promise<string> {
  const now = nowIso();
  const id = newEventId();
  const body: EventBody = { type, timestamp: now, data };
  // A response event names its response, so erasing the response finds and redacts it.
  const responseUuid = (data.response as { uuid?: unknown } | undefined)?.uuid;
  await trx
    .insertInto("outbox_events")
    .values({ uuid: id, workspace_uuid: workspaceUuid, type, payload: JSON.stringify(body), response_uuid: typeof responseUuid === "string" ? responseUuid : null, erased_at: null, date_created: now })
    .execute();
  return id;
}

/**
 * Queues `type` for every webhook of the workspace (or of `linkUuid`) subscribed to it.
 * @param e.data the event's data, or a function building it — called only when someone is
 *   subscribed, so an event nobody receives costs one query (the intake's hot path, bench/intake.ts)
 * @returns the event id (`msg_…`), or null when nobody is subscribed (nothing is stored)
 */
export async function enqueueEvent(
  trx: Transaction<Database>,
  e: { workspaceUuid: string; linkUuid: string; type: string; data: Record<string, unknown> | (() => Promise<Record<string, unknown>>) },
): Promise<string | null> {
  const hooks = await subscribedWebhooks(trx, e.workspaceUuid, e.linkUuid, e.type);
  const matching = hooks.filter((h) => h.events.split(" ").includes(e.type));
  if (!matching.length) return null;
  const data = typeof e.data === "function" ? await e.data() : e.data;
  const id = await insertEvent(trx, e.workspaceUuid, e.type, data);
  for (const h of matching) await insertDelivery(trx, id, h.uuid);
  return id;
}

/**
 * Queues an event for one webhook only, whatever it subscribes to (`webhook.test`).
 * @returns the event id and the delivery uuid
 */
export async function enqueueEventForWebhook(
  trx: Transaction<Database>,
  e: { workspaceUuid: string; webhookUuid: string; type: string; data: Record<string, unknown> },
): Promise<{ eventId: string; deliveryUuid: string }> {
  const eventId = await insertEvent(trx, e.workspaceUuid, e.type, e.data);
  return { eventId, deliveryUuid: await insertDelivery(trx, eventId, e.webhookUuid) };
}
