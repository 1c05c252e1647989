/**
 * Alerts (issue 28; DESIGN §15; docs/alerts.md): per-link rules that send a message to a chat or
 * notification destination when an analysed response matches them. Each rule owns one outbox
 * target, a `webhooks` row whose `purpose` is `alert` (never listed among the workspace's
 * webhooks), so alert messages share the outbox's retries, SSRF guard, leases and delivery logs.
 * `window_start`/`window_sent`/`suppressed` carry the per-rule hourly rate limit.
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("webhooks")
    .addColumn("purpose", "text", (c) => c.notNull().defaultTo("webhook"))
    .execute();
  await db.schema
    .createTable("alert_rules")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull().references("workspaces.uuid"))
    .addColumn("link_uuid", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("conditions", "text", (c) => c.notNull())
    .addColumn("match", "text", (c) => c.notNull())
    .addColumn("destination_kind", "text", (c) => c.notNull())
    .addColumn("destination_url", "text", (c) => c.notNull())
    .addColumn("matrix_room", "text")
    .addColumn("webhook_uuid", "text", (c) => c.notNull())
    .addColumn("max_per_hour", "integer", (c) => c.notNull())
    .addColumn("window_start", "text")
    .addColumn("window_sent", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("suppressed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("alert_rules_link").on("alert_rules").columns(["link_uuid", "date_created"]).execute();
}
