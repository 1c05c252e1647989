/**
 * Alerts, the rest of issue 28 (docs/alerts.md): `lang`, the language of a rule's messages (a
 * mail catalog language, src/mail/catalog.ts; null: English) — by default the `Accept-Language`
 * of the request that created it, as the console has no language of its own; and `bearer`, 1
 * when the rule's outbox target's secret is an access token its destination receives as
 * `Authorization: Bearer` (an ntfy topic protected by a token; Matrix always sends its token);
 * and `alert_firings`, which rule fired (or was counted by its rate limit) for which response, so a
 * theme rebuild that places an answer later fires a rule at most once per response (kept about a
 * week, the late-firing window; alerts/fire.ts).
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("alert_rules").addColumn("lang", "text").execute();
  await db.schema
    .alterTable("alert_rules")
    .addColumn("bearer", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("alert_firings")
    .addColumn("rule_uuid", "text", (c) => c.notNull())
    .addColumn("response_uuid", "text", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("alert_firings_pk", ["rule_uuid", "response_uuid"])
    .execute();
}
