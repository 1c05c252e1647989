/**
 * @module outbox/repository
 * Kysely queries of the webhook outbox (DESIGN §8): claiming due deliveries with a lease,
 * recording attempts, lease recovery after a crash, and pruning old delivery logs. One row per
 * event (`outbox_events`), per event × webhook (`webhook_deliveries`), per attempt
 * (`webhook_attempts`), as in Svix. The lease mechanics are the shared queue skeleton's
 * (src/queue/durable-queue.ts); the fair choice of what to claim is the outbox's own.
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder, type Transaction } from "kysely";
import { systemClock, type Clock } from "../clock.ts";
import { engineOf, type Engine } from "../db/engine.ts";
import type { Database, WebhookDeliveryTable, Executor } from "../db/schema.ts";
import { claimTransaction, releaseLeases as releaseQueueLeases, type QueueTable } from "../queue/durable-queue.ts";
import { chooseFairly, type ClaimLimits, type QueueRow } from "../queue/fair-choice.ts";

export const DELIVERIES_QUEUE: QueueTable = { table: "webhook_deliveries", key: "uuid", waiting: "pending", leased: "delivering", dueAt: "next_attempt_at" };

/** Default cap of deliveries in flight to one webhook (docs/webhooks.md, "Fairness"). */
export const PER_WEBHOOK_IN_FLIGHT = 2;
/** Default cap of deliveries in flight to one workspace's webhooks together. */
export const PER_WORKSPACE_IN_FLIGHT = 4;

/** A delivery this process leased, with what sending it needs. */
export type ClaimedDelivery = {
  uuid: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The lease token: the delivery is ours while its `lease_until` still equals this. */
  leaseUntil: string;
  eventUuid: string;
  eventType: string;
  body: string;
  webhookUuid: string;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  failingSince: string | null;
};

/** The advisory lock key serialising outbox claims across PostgreSQL nodes (not the global write lock). */
const OUTBOX_CLAIM_LOCK = 0x0e5a_0b0c;

/** How many deliveries one claim may lease (see {@link chooseFairly}). */
export type { ClaimLimits } from "../queue/fair-choice.ts";

/** A chosen delivery with what sending it needs. */
type SendRow = {
  uuid: string;
  attempts: number;
  event_uuid: string;
  type: string;
  payload: string;
  webhook_uuid: string;
  url: string;
  enabled: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
};

/**
 * What the fair choice ranks, read in one statement of index searches: every webhook's first
 * `perWebhook` due pending deliveries — bounded by the due time of its `perWebhook`-th (an index
 * probe per webhook), so the backlog behind the head is never read; ties on that time are all
 * included — and every `delivering` one (live leases count against the caps, expired ones are
 * claimable again). Parameters: now, perWebhook.
 *
 * On SQLite the bound is a correlated scalar subquery (`LIMIT 1 OFFSET perWebhook − 1`, else
 * now), which SQLite evaluates once per webhook as the range end of the index search: 5–13 µs per
 * claim. PostgreSQL would test such a subquery on every due row of the webhook instead, so there
 * the bounds are a materialised CTE joined to the deliveries (SQLite ran that form in ~30 µs).
 */
const HEADS_SQL: Record<Engine["name"], string> = {
  postgres: `WITH cut AS MATERIALIZED (
    SELECT w.uuid, w.workspace_uuid, (
      SELECT MAX(h.t) FROM (
        SELECT z.next_attempt_at AS t FROM webhook_deliveries z
        WHERE z.webhook_uuid = w.uuid AND z.state = 'pending' AND z.next_attempt_at <= ?
        ORDER BY z.next_attempt_at LIMIT ?
      ) h
    ) AS until
    FROM webhooks w
  )
  SELECT d.uuid, d.webhook_uuid, cut.workspace_uuid, d.state, d.next_attempt_at, NULL AS lease_until
  FROM cut CROSS JOIN webhook_deliveries d
  WHERE d.webhook_uuid = cut.uuid AND d.state = 'pending' AND d.next_attempt_at <= cut.until
  UNION ALL
  SELECT d.uuid, d.webhook_uuid, w.workspace_uuid, d.state, d.next_attempt_at, d.lease_until
  FROM webhook_deliveries d JOIN webhooks w ON w.uuid = d.webhook_uuid
  WHERE d.state = 'delivering'`,
  sqlite: `SELECT d.uuid, d.webhook_uuid, w.workspace_uuid, d.state, d.next_attempt_at, NULL AS lease_until
  FROM webhooks w CROSS JOIN webhook_deliveries d INDEXED BY webhook_deliveries_webhook_due
  WHERE d.webhook_uuid = w.uuid AND d.state = 'pending' AND d.next_attempt_at <= COALESCE((
    SELECT z.next_attempt_at FROM webhook_deliveries z INDEXED BY webhook_deliveries_webhook_due
    WHERE z.webhook_uuid = w.uuid AND z.state = 'pending' AND z.next_attempt_at <= ?1
    ORDER BY z.next_attempt_at LIMIT 1 OFFSET ?2 - 1
  ), ?1)
  UNION ALL
  SELECT d.uuid, d.webhook_uuid, w.workspace_uuid, d.state, d.next_attempt_at, d.lease_until
  FROM webhook_deliveries d INDEXED BY webhook_deliveries_due JOIN webhooks w ON w.uuid = d.webhook_uuid
  WHERE d.state = 'delivering'`,
};

/**
 * What sending the chosen deliveries needs, re-checking that each is still claimable; on
 * PostgreSQL each delivery row is locked with `FOR UPDATE OF d SKIP LOCKED`, skipping any row
 * whose attempt another node is recording. The re-check is a CASE, which no index serves, so the
 * rows are found by primary key (as an OR of two index ranges, SQLite may read the whole backlog
 * through `webhook_deliveries_due`). Parameters: now, now, then the n uuids.
 */
const SEND_SQL = (
  e: Engine,
  n: number,
) => `SELECT d.uuid, d.attempts, e.uuid AS event_uuid, e.type, e.payload, w.uuid AS webhook_uuid, w.url, w.enabled, w.secret,
    w.previous_secret, w.previous_secret_expires_at, w.failing_since
  FROM webhook_deliveries d JOIN outbox_events e ON e.uuid = d.event_uuid JOIN webhooks w ON w.uuid = d.webhook_uuid
  WHERE CASE d.state WHEN 'pending' THEN d.next_attempt_at <= ? WHEN 'delivering' THEN d.lease_until < ? ELSE FALSE END
    AND d.uuid IN (${Array.from({ length: n }, () => "?").join(", ")})${e.skipLockedOf("d")}`;

/** A statement's text with `?` (SQLite) or `$n` (PostgreSQL) placeholders, built once per engine and key. */
const claimTexts = new Map<string, string>();
function claimStatement(e: Engine, key: string, build: () => string, params: unknown[]): CompiledQuery {
  const k = `${e.name} ${key}`;
  let text = claimTexts.get(k);
  if (!text) {
    text = e.placeholders(build());
    claimTexts.set(k, text);
  }
  return CompiledQuery.raw(text, params);
}

/**
 * Leases due deliveries (pending and due, or delivering with an expired lease) for `leaseS`
 * seconds, fairly (docs/webhooks.md, "Fairness"): a webhook never has more than `perWebhook`
 * deliveries in flight, nor a workspace more than `perWorkspace`, and the claim goes
 * round-robin — every workspace's first due delivery before any workspace's second, and inside a
 * workspace every webhook's first before any webhook's second; ties go to the oldest due time.
 * So a receiver that hangs holds at most its own slots, and the other webhooks' events still leave.
 * The statements are prebuilt (they run about once per delivery, bench/webhooks.ts): read the
 * heads and the deliveries in flight, rank them ({@link chooseFairly}), read what sending the
 * chosen needs, lease them.
 * @param limits a number means `{ limit: n }` with the default per-webhook and per-workspace caps
 * @returns the leased deliveries (at most `limit`), in claim order, each with what sending it needs
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  limits: number | ClaimLimits,
  leaseS: number,
  clock: Clock = systemClock,
): Promise<ClaimedDelivery[]> {
  const caps: ClaimLimits = typeof limits === "number" ? { limit: limits, perWebhook: PER_WEBHOOK_IN_FLIGHT, perWorkspace: PER_WORKSPACE_IN_FLIGHT } : limits;
  if (caps.limit <= 0) return [];
  // Choose, then lease by primary key, in one transaction. On SQLite that transaction holds the
  // write lock. On PostgreSQL it is READ COMMITTED without the global write lock: outbox claims
  // take their own transaction-scoped advisory lock, so the caps see every committed claim of
  // every node (fairness stays exact; a lease released meanwhile only makes the count cautious),
  // and the chosen rows are re-checked and locked with `FOR UPDATE SKIP LOCKED`.
  return claimTransaction(db).execute((trx) => claimIn(trx, caps, leaseS, clock));
}

/** The claim's statements inside the caller's transaction (see {@link claimDueDeliveries}). */
async function claimIn(trx: Transaction<Database>, caps: ClaimLimits, leaseS: number, clock: Clock): Promise<ClaimedDelivery[]> {
  if (caps.limit <= 0) return [];
  const now = clock.nowIso();
  const leaseUntil = clock.isoAfter(leaseS);
  const engine = engineOf(trx);
  await engine.transactionLock(trx, OUTBOX_CLAIM_LOCK);
  const heads = await trx.executeQuery<QueueRow>(claimStatement(engine, "heads", () => HEADS_SQL[engine.name], [now, caps.perWebhook]));
  const uuids = chooseFairly(heads.rows, now, caps);
  if (!uuids.length) return [];
  const send = await trx.executeQuery<SendRow>(claimStatement(engine, `send ${uuids.length}`, () => SEND_SQL(engine, uuids.length), [now, now, ...uuids]));
  if (!send.rows.length) return [];
  const byUuid = new Map(send.rows.map((r) => [r.uuid, r]));
  const chosen = uuids.flatMap((u) => byUuid.get(u) ?? []);
  await trx.executeQuery(leaseStatement(engine, chosen.length, [leaseUntil, now, ...chosen.map((r) => r.uuid)]));
  return chosen.map((r) => ({
    uuid: r.uuid,
    attempts: Number(r.attempts),
    leaseUntil,
    eventUuid: r.event_uuid,
    eventType: r.type,
    body: r.payload,
    webhookUuid: r.webhook_uuid,
    url: r.url,
    enabled: Number(r.enabled) === 1,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    failingSince: r.failing_since,
  }));
}

/** `UPDATE … SET state = 'delivering', lease_until, date_updated WHERE uuid IN (n uuids)`, its text built once per engine and size. */
const leaseTexts = new Map<string, string>();
function leaseStatement(e: Engine, n: number, params: unknown[]): CompiledQuery {
  const key = `${e.name} ${n}`;
  let text = leaseTexts.get(key);
  if (!text) {
    const ins = Array.from({ length: n }, () => "?").join(", ");
    text = e.placeholders(`UPDATE webhook_deliveries SET state = 'delivering', lease_until = ?, date_updated = ? WHERE uuid IN (${ins})`);
    leaseTexts.set(key, text);
  }
  return CompiledQuery.raw(text, params);
}

/** What one attempt produced and what follows from it. */
export type AttemptRecord = {
  statusCode: number | null;
  excerpt: string | null;
  durationMs: number;
  error: string | null;
  state: "pending" | "succeeded" | "failed";
  nextAttemptAt: string | null;
  /** Set when the webhook must be disabled (410, or failing too long). */
  disableReason: string | null;
};

/**
 * Stores attempt `d.attempts + 1` and the delivery's and webhook's new state, in one transaction.
 * @returns false when the delivery is gone (webhook deleted) or no longer leased by us
 */
export async function recordAttempt(db: Kysely<Database>, d: ClaimedDelivery, a: AttemptRecord, clock: Clock = systemClock): Promise<boolean> {
  return db.transaction().execute((trx) => recordIn(trx, d, a, clock));
}

/**
 * Records an attempt ({@link recordAttempt}) and claims for the slot it frees ({@link
 * claimDueDeliveries} with `next`). On SQLite both run in one transaction: one commit per
 * delivery instead of two (a commit is the largest single cost left, bench/webhooks.ts), and the
 * claim sees the attempt's lease released, as a claim just after it would. On PostgreSQL they stay
 * two transactions, so claims keep out of the global write lock.
 * @param next the claim's limits and lease (seconds); null claims nothing
 * @returns whether the attempt was recorded (as {@link recordAttempt}), and what was claimed
 */
export async function recordAttemptAndClaim(
  db: Kysely<Database>,
  d: ClaimedDelivery,
  a: AttemptRecord,
  next: { limits: ClaimLimits; leaseS: number } | null,
  clock: Clock = systemClock,
): Promise<{ recorded: boolean; claimed: ClaimedDelivery[] }> {
  if (engineOf(db).rowLocks || !next) {
    const recorded = await recordAttempt(db, d, a, clock);
    return { recorded, claimed: next ? await claimDueDeliveries(db, next.limits, next.leaseS, clock) : [] };
  }
  try {
    return await db.transaction().execute(async (trx) => {
      const recorded = await recordIn(trx, d, a, clock);
      return { recorded, claimed: await claimIn(trx, next.limits, next.leaseS, clock) };
    });
  } catch {
    // A failed claim must not lose the attempt it shared a transaction with: record it alone
    // (this throws when the recording itself fails).
    return { recorded: await recordAttempt(db, d, a, clock), claimed: [] };
  }
}

/** The statements of {@link recordAttempt} inside the caller's transaction. */
async function recordIn(trx: Transaction<Database>, d: ClaimedDelivery, a: AttemptRecord, clock: Clock): Promise<boolean> {
  const engine = engineOf(trx);
  const now = clock.nowIso();
  const attempt = d.attempts + 1;
  // Only while the lease is ours: one conditional update instead of a read and a write. The
  // statements are prebuilt: they run once per delivery (bench/webhooks.ts).
  const updated = await trx.executeQuery(
    recordStatement(engine, "delivery", [a.state, attempt, a.nextAttemptAt, a.statusCode, a.excerpt, a.durationMs, a.error, now, d.uuid, d.leaseUntil]),
  );
  if (Number(updated.numAffectedRows ?? 0) === 0) return false;
  await trx.executeQuery(recordStatement(engine, "attempt", [crypto.randomUUID(), d.uuid, attempt, a.statusCode, a.excerpt, a.durationMs, a.error, now]));
  const ok = a.state === "succeeded";
  if (a.disableReason) {
    await trx.executeQuery(recordStatement(engine, "disable", [now, a.statusCode, ok ? null : now, a.disableReason, now, d.webhookUuid]));
  } else {
    await trx.executeQuery(recordStatement(engine, "webhook", [now, a.statusCode, ok ? null : now, d.webhookUuid]));
  }
  return true;
}

/** The SQL of recording an attempt, with `?` (SQLite) or `$n` (PostgreSQL) placeholders. */
const RECORD_SQL = {
  delivery:
    "UPDATE webhook_deliveries SET state = ?, attempts = ?, next_attempt_at = ?, lease_until = NULL, last_status_code = ?, last_response_excerpt = ?, last_duration_ms = ?, last_error = ?, date_updated = ? WHERE uuid = ? AND lease_until = ?",
  attempt:
    "INSERT INTO webhook_attempts (uuid, delivery_uuid, attempt, status_code, response_excerpt, duration_ms, error, date_created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  // failing_since: kept while failing (COALESCE), cleared by a success (NULL passed as the new value).
  webhook:
    "UPDATE webhooks SET last_delivery_at = ?, last_delivery_status = ?, failing_since = CASE WHEN CAST(? AS text) IS NULL THEN NULL ELSE COALESCE(failing_since, ?) END WHERE uuid = ?",
  disable:
    "UPDATE webhooks SET last_delivery_at = ?, last_delivery_status = ?, failing_since = CASE WHEN CAST(? AS text) IS NULL THEN NULL ELSE COALESCE(failing_since, ?) END, enabled = 0, disabled_reason = ?, date_updated = ? WHERE uuid = ?",
} as const;
const recordTexts = new Map<string, string>();
function recordStatement(e: Engine, which: keyof typeof RECORD_SQL, params: unknown[]): CompiledQuery {
  const key = `${e.name} ${which}`;
  let text = recordTexts.get(key);
  if (!text) {
    text = e.placeholders(RECORD_SQL[which]);
    recordTexts.set(key, text);
  }
  // The failing_since CASE reads its value twice.
  const values = which === "webhook" || which === "disable" ? [...params.slice(0, 3), params[2], ...params.slice(3)] : params;
  return CompiledQuery.raw(text, values);
}

/** Ends a delivery without an attempt (its webhook is disabled). */
export async function failWithoutAttempt(db: Executor, d: ClaimedDelivery, reason: string, clock: Clock = systemClock): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set({ state: "failed", next_attempt_at: null, lease_until: null, last_error: reason, date_updated: clock.nowIso() })
    .where("uuid", "=", d.uuid)
    .where("lease_until", "=", d.leaseUntil)
    .execute();
}

/**
 * Makes deliveries left `delivering` claimable again: all of them at start-up of the single SQLite
 * process (no live lease can exist), or only expired leases (`onlyExpired`). The claim itself
 * takes expired leases too, so nothing needs a periodic sweep.
 * @returns how many deliveries were released
 */
export async function releaseLeases(db: Executor, onlyExpired: boolean, clock: Clock = systemClock): Promise<number> {
  return releaseQueueLeases(db, DELIVERIES_QUEUE, onlyExpired, clock);
}

/**
 * Deletes finished deliveries (and their attempts) and events older than `retentionDays`;
 * pending deliveries are never pruned.
 * @returns how many deliveries were deleted
 */
export async function pruneDeliveryLogs(db: Kysely<Database>, retentionDays: number, clock: Clock = systemClock): Promise<number> {
  const cutoff = clock.isoAfter(-retentionDays * 86_400);
  return db.transaction().execute(async (trx) => {
    const finished: WebhookDeliveryTable["state"][] = ["succeeded", "failed"];
    const old = trx.selectFrom("webhook_deliveries").select("uuid").where("state", "in", finished).where("date_updated", "<", cutoff);
    await trx.deleteFrom("webhook_attempts").where("delivery_uuid", "in", old).execute();
    const r = await trx.deleteFrom("webhook_deliveries").where("state", "in", finished).where("date_updated", "<", cutoff).executeTakeFirst();
    await trx
      .deleteFrom("outbox_events")
      .where("date_created", "<", cutoff)
      .where((eb) => eb.not(eb.exists(eb.selectFrom("webhook_deliveries as d").select("d.uuid").whereRef("d.event_uuid", "=", "outbox_events.uuid"))))
      .execute();
    return Number(r.numDeletedRows);
  });
}

/** Inserts one pending delivery of an event to a webhook, due now. */
export async function insertDelivery(db: Executor, eventUuid: string, webhookUuid: string, clock: Clock = systemClock): Promise<string> {
  const now = clock.nowIso();
  const uuid = crypto.randomUUID();
  await db
    .insertInto("webhook_deliveries")
    .values({ uuid, event_uuid: eventUuid, webhook_uuid: webhookUuid, state: "pending", next_attempt_at: now, date_created: now, date_updated: now })
    .execute();
  return uuid;
}

/** `last_error` of a delivery cancelled because its response was erased. */
export const ERASED_DELIVERY_ERROR = "The response was erased.";

/** The stub payload of an erased event, built from the row's own columns, per engine. */
const ERASED_PAYLOAD: Record<Engine["name"], RawBuilder<string>> = {
  sqlite: sql<string>`json_object('type', type, 'erased', json('true'), 'data', json_object('workspace_uuid', workspace_uuid, 'response', json_object('uuid', response_uuid)))`,
  postgres: sql<string>`json_build_object('type', type, 'erased', true, 'data', json_build_object('workspace_uuid', workspace_uuid, 'response', json_build_object('uuid', response_uuid)))::text`,
};

/**
 * The outbox's part of erasing a response (docs/webhooks.md, "Erased responses"); call inside the
 * erasing transaction. Every event about the response keeps its id and type but its payload
 * becomes a stub (`{"type", "erased": true, "data": {"workspace_uuid", "response": {"uuid"}}}`)
 * and `erased_at` is set; its pending and in-flight deliveries end `failed` without another
 * attempt (an in-flight attempt's outcome is then not recorded: its lease is gone); the response
 * excerpts of its deliveries and attempts are dropped, since a receiver may echo the body.
 * @returns how many events were redacted
 */
export async function eraseResponseEvents(trx: Executor, responseUuid: string): Promise<number> {
  const now = systemClock.nowIso();
  const events = trx.selectFrom("outbox_events").select("uuid").where("response_uuid", "=", responseUuid);
  const deliveries = trx.selectFrom("webhook_deliveries").select("uuid").where("event_uuid", "in", events);
  await trx.updateTable("webhook_attempts").set({ response_excerpt: null }).where("delivery_uuid", "in", deliveries).execute();
  await trx.updateTable("webhook_deliveries").set({ last_response_excerpt: null }).where("event_uuid", "in", events).execute();
  await trx
    .updateTable("webhook_deliveries")
    .set({ state: "failed", next_attempt_at: null, lease_until: null, last_error: ERASED_DELIVERY_ERROR, date_updated: now })
    .where("event_uuid", "in", events)
    .where("state", "in", ["pending", "delivering"])
    .execute();
  const r = await trx
    .updateTable("outbox_events")
    .set({
      payload: ERASED_PAYLOAD[engineOf(trx).name],
      erased_at: now,
    })
    .where("response_uuid", "=", responseUuid)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** `last_error` of a delivery ended because its target's destination changed. */
export const DESTINATION_CHANGED_ERROR = "Not sent: the destination changed after this was queued.";

/**
 * Ends a target's deliveries that are still to be sent or in flight (`pending`, `delivering`):
 * for an alert rule whose destination changed, a retry must not carry the new token to the old
 * URL, nor the old message to the new one (security review, 2026-11-28).
 * @returns how many deliveries were ended
 */
export async function endUnsentDeliveries(trx: Executor, webhookUuid: string, reason: string, clock: Clock = systemClock): Promise<number> {
  const r = await trx
    .updateTable("webhook_deliveries")
    .set({ state: "failed", next_attempt_at: null, lease_until: null, last_error: reason, date_updated: clock.nowIso() })
    .where("webhook_uuid", "=", webhookUuid)
    .where("state", "in", ["pending", "delivering"])
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
