/**
 * @module webhooks/events
 * Which webhooks receive an event (DESIGN §8): the enabled webhooks of the workspace — or of the
 * link, for an `on_finished` webhook — subscribed to its type. The outbox (src/outbox/enqueue.ts)
 * then stores the event and one delivery per webhook found here; it knows no webhook itself.
 */
import type { Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import { subscribedWebhooks } from "./repository.ts";

/**
 * Queues `type` for every webhook of the workspace (or of `linkUuid`) subscribed to it, inside the
 * caller's transaction.
 * @param e.data the event's data (typed by its producer's wrapper, e.g. responses/events.ts `queueResponseEvent`), or a function building it — called only when someone is
 *   subscribed, so an event nobody receives costs one query (the intake's hot path, bench/intake.ts)
 * @returns the event id (`msg_…`), or null when nobody is subscribed (nothing is stored)
 */
export async function queueWebhookEvent<D extends object>(
  trx: Transaction<Database>,
  e: { workspaceUuid: string; linkUuid: string; type: string; data: D | (() => Promise<D>) },
): Promise<string | null> {
  const hooks = await subscribedWebhooks(trx, e.workspaceUuid, e.linkUuid, e.type);
  const matching = hooks.filter((h) => h.events.split(" ").includes(e.type));
  if (!matching.length) return null;
  const data = typeof e.data === "function" ? await e.data() : e.data;
  return enqueueEvent(trx, { workspaceUuid: e.workspaceUuid, type: e.type, data: data as Record<string, unknown>, webhookUuids: matching.map((h) => h.uuid) });
}
