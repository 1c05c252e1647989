/**
 * @module alerts/repository
 * Kysely queries of alert rules (issue 28) and of what matching reads of a response: its answers
 * with their NPS configuration, and theme labels. The per-rule rate limit is two conditional
 * updates, so concurrent firings (several PostgreSQL nodes) never send more than the cap.
 */
import { prepared } from "../../db/prepared.ts";
import type { AlertRuleTable, Executor } from "../../db/schema.ts";

export type AlertRuleRow = AlertRuleTable;

/** A rule with its outbox target's delivery state. */
export type AlertRuleWithTarget = AlertRuleRow & {
  target_enabled: number;
  disabled_reason: string | null;
  last_delivery_at: string | null;
  last_delivery_status: number | null;
  secret: string;
};

function withTarget(db: Executor) {
  return db
    .selectFrom("alert_rules as a")
    .innerJoin("webhooks as w", "w.uuid", "a.webhook_uuid")
    .selectAll("a")
    .select(["w.enabled as target_enabled", "w.disabled_reason", "w.last_delivery_at", "w.last_delivery_status", "w.secret"]);
}

export function insertAlertRule(db: Executor, row: AlertRuleRow) {
  return db.insertInto("alert_rules").values(row).execute();
}

export function findAlertRule(db: Executor, linkUuid: string, uuid: string): Promise<AlertRuleWithTarget | undefined> {
  return withTarget(db).where("a.link_uuid", "=", linkUuid).where("a.uuid", "=", uuid).executeTakeFirst();
}

export async function listAlertRules(db: Executor, linkUuid: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    withTarget(db).where("a.link_uuid", "=", linkUuid).orderBy("a.date_created", "desc").limit(limit).offset(offset).execute(),
    db
      .selectFrom("alert_rules")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("link_uuid", "=", linkUuid)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n)),
  ]);
  return { rows, count };
}

// Compiled once: it runs in every completed submission's transaction (db/prepared.ts; bench/intake.ts).
const enabledRules = prepared(2, (db, linkUuid: string, enabled: number) =>
  db.selectFrom("alert_rules").selectAll().where("link_uuid", "=", linkUuid).where("enabled", "=", enabled).orderBy("date_created"),
);

/** The enabled rules of a link (what firing reads: one indexed query per finished response). */
export function enabledRulesOfLink(db: Executor, linkUuid: string): Promise<AlertRuleRow[]> {
  return enabledRules(db, linkUuid, 1);
}

export function updateAlertRule(db: Executor, uuid: string, patch: Partial<Omit<AlertRuleRow, "uuid" | "workspace_uuid" | "link_uuid">>) {
  return db.updateTable("alert_rules").set(patch).where("uuid", "=", uuid).execute();
}

/** Deletes a rule and its outbox target (whose deliveries go with it, as a deleted webhook's). */
export async function deleteAlertRule(db: Executor, row: AlertRuleRow): Promise<void> {
  await db.deleteFrom("alert_firings").where("rule_uuid", "=", row.uuid).execute();
  await db.deleteFrom("alert_rules").where("uuid", "=", row.uuid).execute();
  await deleteTarget(db, row.webhook_uuid);
}

async function deleteTarget(db: Executor, webhookUuid: string): Promise<void> {
  const deliveries = db.selectFrom("webhook_deliveries").select("uuid").where("webhook_uuid", "=", webhookUuid);
  await db.deleteFrom("webhook_attempts").where("delivery_uuid", "in", deliveries).execute();
  await db.deleteFrom("webhook_deliveries").where("webhook_uuid", "=", webhookUuid).execute();
  await db.deleteFrom("webhooks").where("uuid", "=", webhookUuid).execute();
}

/** Deletes every rule of a link (the link is being deleted; its `webhooks` rows go with the link's). */
export async function deleteAlertRulesOfLink(db: Executor, linkUuid: string): Promise<void> {
  await db
    .deleteFrom("alert_firings")
    .where("rule_uuid", "in", (eb) => eb.selectFrom("alert_rules").select("uuid").where("link_uuid", "=", linkUuid))
    .execute();
  await db.deleteFrom("alert_rules").where("link_uuid", "=", linkUuid).execute();
}

/**
 * Takes one message from the rule's hourly allowance: a new hour starts when the current one
 * (from `window_start`) is over. Over the cap, the alert is counted in `suppressed` instead.
 * @returns null when the rule is over its cap (nothing to send), else how many alerts were
 *   suppressed since its last message (reset to 0 now; the message reports them)
 */
export async function takeFromAllowance(db: Executor, uuid: string, now: string, hourAgo: string): Promise<number | null> {
  await db
    .updateTable("alert_rules")
    .set({ window_start: now, window_sent: 0 })
    .where("uuid", "=", uuid)
    .where((eb) => eb.or([eb("window_start", "is", null), eb("window_start", "<=", hourAgo)]))
    .execute();
  const taken = await db
    .updateTable("alert_rules")
    .set((eb) => ({ window_sent: eb("window_sent", "+", 1) }))
    .where("uuid", "=", uuid)
    .whereRef("window_sent", "<", "max_per_hour")
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 0) {
    await db
      .updateTable("alert_rules")
      .set((eb) => ({ suppressed: eb("suppressed", "+", 1) }))
      .where("uuid", "=", uuid)
      .execute();
    return null;
  }
  // The update above holds the row's lock on PostgreSQL, so this read and reset see no other firing.
  const row = await db.selectFrom("alert_rules").select("suppressed").where("uuid", "=", uuid).executeTakeFirstOrThrow();
  if (Number(row.suppressed) > 0) await db.updateTable("alert_rules").set({ suppressed: 0 }).where("uuid", "=", uuid).execute();
  return Number(row.suppressed);
}

/** The questions' configurations (JSON text) by uuid. */
export async function questionConfigs(db: Executor, uuids: string[]): Promise<Map<string, string>> {
  if (!uuids.length) return new Map();
  const rows = await db.selectFrom("questions").select(["uuid", "configuration"]).where("uuid", "in", uuids).execute();
  return new Map(rows.map((r) => [r.uuid, r.configuration]));
}

/** Theme labels by uuid. */
export async function themeLabels(db: Executor, uuids: string[]): Promise<Map<string, string>> {
  if (!uuids.length) return new Map();
  const rows = await db.selectFrom("themes").select(["uuid", "label"]).where("uuid", "in", uuids).execute();
  return new Map(rows.map((r) => [r.uuid, r.label]));
}

/**
 * Records that `ruleUuid` fired for `responseUuid` (sent or counted by the rate limit), and forgets
 * the rule's firings older than `forgetBefore` (past the late-firing window: never asked again).
 * @returns false when it had already fired for that response (nothing recorded)
 */
export async function recordFiring(db: Executor, ruleUuid: string, responseUuid: string, now: string, forgetBefore: string): Promise<boolean> {
  await db.deleteFrom("alert_firings").where("rule_uuid", "=", ruleUuid).where("date_created", "<", forgetBefore).execute();
  const r = await db
    .insertInto("alert_firings")
    .values({ rule_uuid: ruleUuid, response_uuid: responseUuid, date_created: now })
    .onConflict((oc) => oc.columns(["rule_uuid", "response_uuid"]).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Answers per query of {@link analysedResponsesOf} (well under either engine's parameter limit). */
const ANSWER_BATCH = 500;

/**
 * The responses of `answerUuids` whose analysis committed (`submitted_event_at` set: their alerts
 * were matched) at or after `since`, with their submission time.
 */
export async function analysedResponsesOf(db: Executor, answerUuids: string[], since: string): Promise<{ uuid: string; submitted_at: string }[]> {
  const out = new Map<string, string>();
  for (let i = 0; i < answerUuids.length; i += ANSWER_BATCH) {
    const rows = await db
      .selectFrom("responses")
      .select(["uuid", "submitted_at"])
      .where("uuid", "in", (eb) =>
        eb
          .selectFrom("answers")
          .select("response_uuid")
          .where("uuid", "in", answerUuids.slice(i, i + ANSWER_BATCH)),
      )
      .where("submitted_event_at", ">=", since)
      .execute();
    for (const r of rows) if (r.submitted_at) out.set(r.uuid, r.submitted_at);
  }
  return [...out].map(([uuid, submitted_at]) => ({ uuid, submitted_at }));
}
