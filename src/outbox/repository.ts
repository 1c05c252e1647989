/**
 * @module outbox/repository
 * Kysely queries of the webhook outbox (DESIGN §8): claiming due deliveries with a lease,
 * recording attempts, lease recovery after a crash, and pruning old delivery logs. One row per
 * event (`outbox_events`), per event × webhook (`webhook_deliveries`), per attempt
 * (`webhook_attempts`), as in Svix. The lease mechanics are the shared queue skeleton's
 * (src/queue/durable-queue.ts); the fair choice of what to claim is the outbox's own.
 */
import { CompiledQuery, sql, type Kysely, type Transaction } from "kysely";
import { systemClock, type Clock } from "../clock.ts";
import { isPostgres } from "../db/dialect.ts";
import type { Database, WebhookDeliveryTable } from "../db/schema.ts";
import { claimTransaction, releaseLeases as releaseQueueLeases, skipLocked, type QueueTable } from "../queue/durable-queue.ts";

type Q = Kysely<Database> | Transaction<Database>;

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

/** How many deliveries one claim may lease, in total and per webhook / workspace (counting those already in flight). */
export type ClaimLimits = { limit: number; perWebhook: number; perWorkspace: number };

type FairParams = { now: string; perWebhook: number; perWorkspace: number; limit: number };
/** A chosen delivery with what sending it needs (the choice reads it in the same statement). */
type FairRow = {
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

/** The fair choice of due deliveries (see {@link claimDueDeliveries}), as one SQL statement. */
function fairChoice(p: FairParams & { pg: boolean }) {
  // `busy_*` = leases still live.
  // `cut`: per webhook, the due time of its `perWebhook`-th due delivery (an index probe per
  // webhook), so `due` reads only each webhook's head, not the whole backlog. Expired leases
  // (a crashed claimer; rare) are added as they are.
  return sql<FairRow>`
    WITH busy_hook AS MATERIALIZED (
      SELECT webhook_uuid, COUNT(*) AS n FROM webhook_deliveries
      WHERE state = 'delivering' AND lease_until >= ${p.now} GROUP BY webhook_uuid
    ),
    busy_ws AS MATERIALIZED (
      SELECT w.workspace_uuid, SUM(b.n) AS n FROM busy_hook b JOIN webhooks w ON w.uuid = b.webhook_uuid GROUP BY w.workspace_uuid
    ),
    cut AS MATERIALIZED (
      SELECT w.uuid AS webhook_uuid, (
        SELECT MAX(h.next_attempt_at) FROM (
          SELECT z.next_attempt_at FROM webhook_deliveries z
          WHERE z.webhook_uuid = w.uuid AND z.state = 'pending' AND z.next_attempt_at <= ${p.now}
          ORDER BY z.next_attempt_at LIMIT ${p.perWebhook}
        ) h
      ) AS until
      FROM webhooks w
    ),
    candidates AS MATERIALIZED (
      SELECT d.uuid, d.webhook_uuid, d.next_attempt_at FROM cut
      CROSS JOIN webhook_deliveries d${p.pg ? sql`` : sql` INDEXED BY webhook_deliveries_webhook_due`}
      WHERE d.webhook_uuid = cut.webhook_uuid AND d.state = 'pending' AND d.next_attempt_at <= cut.until
      UNION ALL
      SELECT d.uuid, d.webhook_uuid, d.next_attempt_at FROM webhook_deliveries d${p.pg ? sql`` : sql` INDEXED BY webhook_deliveries_due`}
      WHERE d.state = 'delivering' AND d.lease_until < ${p.now}
    ),
    due AS MATERIALIZED (
      SELECT c.uuid, c.next_attempt_at, w.workspace_uuid,
        ROW_NUMBER() OVER (PARTITION BY c.webhook_uuid ORDER BY c.next_attempt_at, c.uuid) + COALESCE(bh.n, 0) AS hook_slot
      FROM candidates c
      JOIN webhooks w ON w.uuid = c.webhook_uuid
      LEFT JOIN busy_hook bh ON bh.webhook_uuid = c.webhook_uuid
    ),
    fit AS (
      SELECT due.uuid, due.next_attempt_at, due.hook_slot,
        ROW_NUMBER() OVER (PARTITION BY due.workspace_uuid ORDER BY due.hook_slot, due.next_attempt_at, due.uuid) + COALESCE(bw.n, 0) AS ws_slot
      FROM due LEFT JOIN busy_ws bw ON bw.workspace_uuid = due.workspace_uuid
      WHERE due.hook_slot <= ${p.perWebhook}
    )
    SELECT d.uuid, d.attempts, e.uuid AS event_uuid, e.type, e.payload, w.uuid AS webhook_uuid, w.url, w.enabled, w.secret,
      w.previous_secret, w.previous_secret_expires_at, w.failing_since
    FROM (SELECT uuid, ws_slot, hook_slot, next_attempt_at FROM fit WHERE ws_slot <= ${p.perWorkspace} ORDER BY ws_slot, hook_slot, next_attempt_at, uuid LIMIT ${p.limit}) f
    JOIN webhook_deliveries d ON d.uuid = f.uuid
    JOIN outbox_events e ON e.uuid = d.event_uuid
    JOIN webhooks w ON w.uuid = d.webhook_uuid
    ORDER BY f.ws_slot, f.hook_slot, f.next_attempt_at, f.uuid
  `;
}

/**
 * The fair choice compiled once per engine and run with new values: it is the outbox's hottest
 * statement (once per freed slot, so about once per delivery), and building and compiling it cost
 * several times more than SQLite running it (bench/webhooks.ts).
 */
const compiledFair = new Map<boolean, { text: string; order: (keyof FairParams)[] }>();
async function runFairChoice(trx: Transaction<Database>, p: FairParams): Promise<FairRow[]> {
  const pg = isPostgres(trx);
  let c = compiledFair.get(pg);
  if (!c) {
    const marks: Record<keyof FairParams, string> = {
      now: "\u0000now",
      perWebhook: "\u0000perWebhook",
      perWorkspace: "\u0000perWorkspace",
      limit: "\u0000limit",
    };
    const compiled = fairChoice({ ...(marks as unknown as FairParams), pg }).compile(trx);
    const byMark = new Map(Object.entries(marks).map(([k, v]) => [v, k as keyof FairParams]));
    c = { text: compiled.sql, order: compiled.parameters.map((v) => byMark.get(v as string)!) };
    compiledFair.set(pg, c);
  }
  return (
    await trx.executeQuery<FairRow>(
      CompiledQuery.raw(
        c.text,
        c.order.map((k) => p[k]),
      ),
    )
  ).rows;
}

/**
 * Leases due deliveries (pending and due, or delivering with an expired lease) for `leaseS`
 * seconds, fairly (docs/webhooks.md, "Fairness"): a webhook never has more than `perWebhook`
 * deliveries in flight, nor a workspace more than `perWorkspace`, and the claim goes
 * round-robin — every workspace's first due delivery before any workspace's second, and inside a
 * workspace every webhook's first before any webhook's second; ties go to the oldest due time.
 * So a receiver that hangs holds at most its own slots, and the other webhooks' events still leave.
 * @param limits a number means `{ limit: n }` with the default per-webhook and per-workspace caps
 * @returns the leased deliveries (at most `limit`), each with what sending it needs
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  limits: number | ClaimLimits,
  leaseS: number,
  clock: Clock = systemClock,
): Promise<ClaimedDelivery[]> {
  const { limit, perWebhook, perWorkspace } =
    typeof limits === "number" ? { limit: limits, perWebhook: PER_WEBHOOK_IN_FLIGHT, perWorkspace: PER_WORKSPACE_IN_FLIGHT } : limits;
  const now = clock.nowIso();
  const leaseUntil = clock.isoAfter(leaseS);
  const pg = isPostgres(db);
  // Choose, then lease by primary key, in one transaction (an UPDATE … WHERE uuid IN (this
  // query) would test every row of the table against it). On SQLite that transaction holds the
  // write lock. On PostgreSQL it is READ COMMITTED without the global write lock: outbox claims
  // take their own transaction-scoped advisory lock, so the caps see every committed claim of
  // every node (fairness stays exact), and the chosen rows are re-checked and locked with
  // `FOR UPDATE SKIP LOCKED`, skipping any row whose attempt another node is recording.
  const chosen = await claimTransaction(db).execute(async (trx) => {
    if (pg) await sql`SELECT pg_advisory_xact_lock(${OUTBOX_CLAIM_LOCK})`.execute(trx);
    let rows = await runFairChoice(trx, { now, perWebhook, perWorkspace, limit });
    if (!rows.length) return [];
    if (pg) {
      const locked = await sql<{ uuid: string }>`SELECT uuid FROM webhook_deliveries WHERE uuid IN (${sql.join(rows.map((r) => r.uuid))})
        AND ((state = 'pending' AND next_attempt_at <= ${now}) OR (state = 'delivering' AND lease_until < ${now}))${skipLocked(trx)}`.execute(trx);
      const mine = new Set(locked.rows.map((r) => r.uuid));
      rows = rows.filter((r) => mine.has(r.uuid));
      if (!rows.length) return [];
    }
    await trx.executeQuery(leaseStatement(pg, rows.length, [leaseUntil, now, ...rows.map((r) => r.uuid)]));
    return rows;
  });
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
function leaseStatement(pg: boolean, n: number, params: unknown[]): CompiledQuery {
  const key = `${pg} ${n}`;
  let text = leaseTexts.get(key);
  if (!text) {
    const mark = (i: number) => (pg ? `$${i}` : "?");
    const ins = Array.from({ length: n }, (_, i) => mark(i + 3)).join(", ");
    text = `UPDATE webhook_deliveries SET state = 'delivering', lease_until = ${mark(1)}, date_updated = ${mark(2)} WHERE uuid IN (${ins})`;
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
  const pg = isPostgres(db);
  return db.transaction().execute(async (trx) => {
    const now = clock.nowIso();
    const attempt = d.attempts + 1;
    // Only while the lease is ours: one conditional update instead of a read and a write. The
    // statements are prebuilt: they run once per delivery (bench/webhooks.ts).
    const updated = await trx.executeQuery(
      recordStatement(pg, "delivery", [a.state, attempt, a.nextAttemptAt, a.statusCode, a.excerpt, a.durationMs, a.error, now, d.uuid, d.leaseUntil]),
    );
    if (Number(updated.numAffectedRows ?? 0) === 0) return false;
    await trx.executeQuery(recordStatement(pg, "attempt", [crypto.randomUUID(), d.uuid, attempt, a.statusCode, a.excerpt, a.durationMs, a.error, now]));
    const ok = a.state === "succeeded";
    if (a.disableReason) {
      await trx.executeQuery(recordStatement(pg, "disable", [now, a.statusCode, ok ? null : now, a.disableReason, now, d.webhookUuid]));
    } else {
      await trx.executeQuery(recordStatement(pg, "webhook", [now, a.statusCode, ok ? null : now, d.webhookUuid]));
    }
    return true;
  });
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
function recordStatement(pg: boolean, which: keyof typeof RECORD_SQL, params: unknown[]): CompiledQuery {
  const key = `${pg} ${which}`;
  let text = recordTexts.get(key);
  if (!text) {
    let i = 0;
    text = pg ? RECORD_SQL[which].replace(/\?/g, () => `$${++i}`) : RECORD_SQL[which];
    recordTexts.set(key, text);
  }
  // The failing_since CASE reads its value twice.
  const values = which === "webhook" || which === "disable" ? [...params.slice(0, 3), params[2], ...params.slice(3)] : params;
  return CompiledQuery.raw(text, values);
}

/** Ends a delivery without an attempt (its webhook is disabled). */
export async function failWithoutAttempt(db: Q, d: ClaimedDelivery, reason: string, clock: Clock = systemClock): Promise<void> {
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
export async function releaseLeases(db: Q, onlyExpired: boolean, clock: Clock = systemClock): Promise<number> {
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
export async function insertDelivery(db: Q, eventUuid: string, webhookUuid: string, clock: Clock = systemClock): Promise<string> {
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

/**
 * The outbox's part of erasing a response (docs/webhooks.md, "Erased responses"); call inside the
 * erasing transaction. Every event about the response keeps its id and type but its payload
 * becomes a stub (`{"type", "erased": true, "data": {"workspace_uuid", "response": {"uuid"}}}`)
 * and `erased_at` is set; its pending and in-flight deliveries end `failed` without another
 * attempt (an in-flight attempt's outcome is then not recorded: its lease is gone); the response
 * excerpts of its deliveries and attempts are dropped, since a receiver may echo the body.
 * @returns how many events were redacted
 */
export async function eraseResponseEvents(trx: Q, responseUuid: string): Promise<number> {
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
      payload: isPostgres(trx)
        ? sql<string>`json_build_object('type', type, 'erased', true, 'data', json_build_object('workspace_uuid', workspace_uuid, 'response', json_build_object('uuid', response_uuid)))::text`
        : sql<string>`json_object('type', type, 'erased', json('true'), 'data', json_object('workspace_uuid', workspace_uuid, 'response', json_object('uuid', response_uuid)))`,
      erased_at: now,
    })
    .where("response_uuid", "=", responseUuid)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
