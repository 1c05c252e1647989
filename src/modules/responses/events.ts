/**
 * @module responses/events
 * Queues a response event (`response.started`, `response.submitted`; DESIGN §8) with its `data`
 * typed by the schema the OpenAPI document publishes (./event-schemas.ts).
 */
import type { Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { queueWebhookEvent } from "../webhooks/events.ts";
import type { ResponseEventData, ResponseEventType } from "./event-schemas.ts";

/**
 * {@link queueWebhookEvent} for a response event: `data` (or the function building it, called only
 * when a webhook is subscribed) must be what the published schema of `type` accepts.
 * @returns the event id (`msg_…`), or null when nobody is subscribed (nothing is stored)
 */
export function queueResponseEvent<T extends ResponseEventType>(
  trx: Transaction<Database>,
  e: { workspaceUuid: string; linkUuid: string; type: T; data: ResponseEventData<T> | (() => Promise<ResponseEventData<T>>) },
): Promise<string | null> {
  return queueWebhookEvent(trx, e);
}
