/**
 * @module webhooks/repository
 * Kysely queries for webhook endpoints.
 */
import type { Kysely, Transaction } from "kysely";
import type { Database, WebhookTable } from "../../db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;
export type WebhookRow = WebhookTable;

export function insertWebhook(db: Q, row: WebhookRow) {
  return db.insertInto("webhooks").values(row).execute();
}

export function findWebhook(db: Q, workspaceUuid: string, uuid: string): Promise<WebhookRow | undefined> {
  return db.selectFrom("webhooks").selectAll().where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", uuid).executeTakeFirst();
}

export function updateWebhook(db: Q, uuid: string, patch: Partial<Omit<WebhookRow, "uuid" | "workspace_uuid">>) {
  return db.updateTable("webhooks").set(patch).where("uuid", "=", uuid).execute();
}

export function deleteWebhook(db: Q, uuid: string) {
  return db.deleteFrom("webhooks").where("uuid", "=", uuid).execute();
}

export function deleteWebhooksOfLink(db: Q, linkUuid: string) {
  return db.deleteFrom("webhooks").where("link_uuid", "=", linkUuid).execute();
}

export async function listWebhooks(db: Q, workspaceUuid: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db.selectFrom("webhooks").selectAll().where("workspace_uuid", "=", workspaceUuid).orderBy("date_created", "desc").limit(limit).offset(offset).execute(),
    db
      .selectFrom("webhooks")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("workspace_uuid", "=", workspaceUuid)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n)),
  ]);
  return { rows, count };
}

/** Enabled webhooks of a workspace subscribed to `event`, for all links or for `linkUuid`. */
export function subscribedWebhooks(db: Q, workspaceUuid: string, linkUuid: string, event: string): Promise<WebhookRow[]> {
  return db
    .selectFrom("webhooks")
    .selectAll()
    .where("workspace_uuid", "=", workspaceUuid)
    .where("enabled", "=", 1)
    .where((eb) => eb.or([eb("link_uuid", "is", null), eb("link_uuid", "=", linkUuid)]))
    .where((eb) => eb.or([eb("events", "=", event), eb("events", "like", `%${event}%`)]))
    .execute();
}
