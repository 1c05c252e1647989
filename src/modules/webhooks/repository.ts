/**
 * @module webhooks/repository
 * Kysely queries for webhook endpoints and their delivery logs (DESIGN §8).
 */
import type { Selectable } from "kysely";
import { prepared } from "../../db/prepared.ts";
import type { WebhookAttemptTable, WebhookDeliveryTable, WebhookTable, Executor } from "../../db/schema.ts";

export type WebhookRow = WebhookTable;

export function insertWebhook(db: Executor, row: WebhookRow) {
  return db.insertInto("webhooks").values(row).execute();
}

export function findWebhook(db: Executor, workspaceUuid: string, uuid: string): Promise<WebhookRow | undefined> {
  // An alert rule's outbox target is managed under alerts/, never here.
  return db
    .selectFrom("webhooks")
    .selectAll()
    .where("workspace_uuid", "=", workspaceUuid)
    .where("uuid", "=", uuid)
    .where("purpose", "=", "webhook")
    .executeTakeFirst();
}

export function updateWebhook(db: Executor, uuid: string, patch: Partial<Omit<WebhookRow, "uuid" | "workspace_uuid">>) {
  return db.updateTable("webhooks").set(patch).where("uuid", "=", uuid).execute();
}

export function deleteWebhook(db: Executor, uuid: string) {
  return db.deleteFrom("webhooks").where("uuid", "=", uuid).execute();
}

/** Whether the workspace has a link with this uuid (a webhook's `link_uuid` filter must name one). */
export async function linkExists(db: Executor, workspaceUuid: string, linkUuid: string): Promise<boolean> {
  const row = await db.selectFrom("links").select("uuid").where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", linkUuid).executeTakeFirst();
  return row !== undefined;
}

export function deleteWebhooksOfLink(db: Executor, linkUuid: string) {
  return db.deleteFrom("webhooks").where("link_uuid", "=", linkUuid).execute();
}

export async function listWebhooks(db: Executor, workspaceUuid: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom("webhooks")
      .selectAll()
      .where("workspace_uuid", "=", workspaceUuid)
      .where("purpose", "=", "webhook")
      .orderBy("date_created", "desc")
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom("webhooks")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("workspace_uuid", "=", workspaceUuid)
      .where("purpose", "=", "webhook")
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n)),
  ]);
  return { rows, count };
}

// Compiled once: it runs in every intake submission's transaction (db/prepared.ts; bench/intake.ts).
const subscribed = prepared(5, (db, workspaceUuid: string, enabled: number, linkUuid: string, event: string, pattern: string) =>
  db
    .selectFrom("webhooks")
    .selectAll()
    .where("workspace_uuid", "=", workspaceUuid)
    .where("enabled", "=", enabled)
    .where((eb) => eb.or([eb("link_uuid", "is", null), eb("link_uuid", "=", linkUuid)]))
    .where((eb) => eb.or([eb("events", "=", event), eb("events", "like", pattern)])),
);

/** Enabled webhooks of a workspace subscribed to `event`, for all links or for `linkUuid`. */
export function subscribedWebhooks(db: Executor, workspaceUuid: string, linkUuid: string, event: string): Promise<WebhookRow[]> {
  return subscribed(db, workspaceUuid, 1, linkUuid, event, `%${event}%`);
}

/** A delivery-log row: the delivery with its event's type, and when its response was erased (else null). */
export type DeliveryLogRow = Selectable<WebhookDeliveryTable> & { event_type: string; event_erased_at: string | null };

function deliveryLog(db: Executor) {
  return db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("outbox_events as e", "e.uuid", "d.event_uuid")
    .selectAll("d")
    .select(["e.type as event_type", "e.erased_at as event_erased_at"]);
}

/** Deliveries of one webhook, newest first, optionally of one state. */
export async function listDeliveries(db: Executor, webhookUuid: string, state: WebhookDeliveryTable["state"] | undefined, limit: number, offset: number) {
  let rows = deliveryLog(db).where("d.webhook_uuid", "=", webhookUuid);
  let count = db
    .selectFrom("webhook_deliveries")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("webhook_uuid", "=", webhookUuid);
  if (state) {
    rows = rows.where("d.state", "=", state);
    count = count.where("state", "=", state);
  }
  const [results, total] = await Promise.all([
    rows.orderBy("d.date_created", "desc").limit(limit).offset(offset).execute(),
    count.executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
  return { rows: results, count: total };
}

/** One delivery of a webhook. */
export async function findDelivery(db: Executor, webhookUuid: string, uuid: string): Promise<DeliveryLogRow | undefined> {
  return deliveryLog(db).where("d.webhook_uuid", "=", webhookUuid).where("d.uuid", "=", uuid).executeTakeFirst();
}

/** The attempts of a delivery, first to last. */
export function attemptsOf(db: Executor, deliveryUuid: string): Promise<WebhookAttemptTable[]> {
  return db.selectFrom("webhook_attempts").selectAll().where("delivery_uuid", "=", deliveryUuid).orderBy("attempt").execute();
}

/** Makes a pending delivery due now (redelivery of one that is still waiting for a retry). */
export function makeDeliveryDueNow(db: Executor, uuid: string, now: string) {
  return db
    .updateTable("webhook_deliveries")
    .set({ next_attempt_at: now, date_updated: now })
    .where("uuid", "=", uuid)
    .where("state", "=", "pending")
    .execute();
}
