/**
 * @module queue/durable-queue
 * The one durable-queue skeleton (issue 13) under the two queue tables, `jobs` (src/jobs/) and
 * `webhook_deliveries` (src/outbox/): each keeps its table, its columns and its own choice of
 * what to claim next; the mechanics they share live here.
 *
 * - **Claim with a lease.** A claim picks due rows and sets `state` to the leased state and
 *   `lease_until` to now + lease, in one short transaction ({@link claimTransaction}). The value
 *   of `lease_until` is the lease token: later writes by the claimer (completion, failure,
 *   renewal) carry `WHERE lease_until = <token>`, so a claimer that lost its lease (it stalled past
 *   the expiry and another node re-claimed the row) changes nothing. On PostgreSQL the choice is
 *   `SELECT … FOR UPDATE SKIP LOCKED` inside a READ COMMITTED transaction (which does not take the
 *   global write lock, DESIGN §11), so nodes claiming at once skip each other's rows instead of
 *   waiting; on SQLite the transaction is the usual `BEGIN IMMEDIATE` (one writer at a time).
 * - **Recovery.** A row whose lease expired is claimable again like a due one (the claim
 *   queries include it), so a node that died mid-work — `kill -9`, power loss — loses nothing:
 *   another node (or this one, restarted) takes the row once the lease runs out. Long work renews
 *   its lease ({@link renewLease}, every third of the lease). At start-up on SQLite the process
 *   owns the database alone, so it releases every lease at once ({@link releaseLeases}); on
 *   PostgreSQL other nodes may hold live leases, so only expiry frees them.
 * - **The polling loop** ({@link createPollingLoop}): one loop per queue, polling every `pollMs`
 *   and nudged when new work commits, plus this node's upkeep on the same loop (cluster-wide
 *   periodic work is jobs, src/jobs/scheduler.ts).
 * - **Backoff** ({@link BackoffPolicy}): exponential for jobs, a fixed schedule with jitter for
 *   webhook deliveries; both answer "how long until the next attempt, or give up".
 */
import { sql, type Kysely } from "kysely";
import type { Clock } from "../clock.ts";
import type { Database, Executor } from "../db/schema.ts";
import { engineOf } from "../db/engine.ts";
import type { Logger } from "../logger.ts";

/** Where a queue keeps its rows: the table, its key, and the names of its queue columns and states. */
export type QueueTable = {
  table: "jobs" | "webhook_deliveries";
  key: "id" | "uuid";
  /** The state of a row waiting for its due time, e.g. `queued`. */
  waiting: string;
  /** The state of a leased row, e.g. `running`. */
  leased: string;
  /** The column holding the next due time. */
  dueAt: "run_at" | "next_attempt_at";
};

/**
 * Starts the transaction a claim runs in: on PostgreSQL READ COMMITTED with no global write lock
 * (the claim is safe by construction: `FOR UPDATE SKIP LOCKED` on the rows it takes); on SQLite
 * the ordinary `BEGIN IMMEDIATE` transaction.
 */
export function claimTransaction(db: Kysely<Database>) {
  return engineOf(db).claimTransaction(db);
}

/** `FOR UPDATE SKIP LOCKED` on PostgreSQL, nothing on SQLite (where the claim holds the write lock). */
export function skipLocked(db: Executor) {
  return engineOf(db).skipLocked;
}

/**
 * Extends a lease we still hold to now + `leaseS`.
 * @returns the new lease token, or null when the lease was lost (expired and re-claimed, or the row is gone)
 */
export async function renewLease(db: Executor, q: QueueTable, key: number | string, token: string, leaseS: number, clock: Clock): Promise<string | null> {
  const next = clock.isoAfter(leaseS);
  const r = await sql`UPDATE ${sql.table(q.table)} SET lease_until = ${next}, date_updated = ${clock.nowIso()}
    WHERE ${sql.ref(q.key)} = ${key} AND state = ${q.leased} AND lease_until = ${token}`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0 ? next : null;
}

/**
 * Makes leased rows claimable again, due now: every one (`onlyExpired` false: at start-up of the
 * single SQLite process), or only those whose lease expired. The attempt stays counted.
 * @returns how many rows were released
 */
export async function releaseLeases(db: Executor, q: QueueTable, onlyExpired: boolean, clock: Clock): Promise<number> {
  const now = clock.nowIso();
  const expired = onlyExpired ? sql` AND lease_until < ${now}` : sql``;
  const r = await sql`UPDATE ${sql.table(q.table)} SET state = ${q.waiting}, lease_until = NULL, ${sql.ref(q.dueAt)} = ${now}, date_updated = ${now}
    WHERE state = ${q.leased}${expired}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/** When the next attempt goes after `failedAttempts` failures, in seconds; null: give up. */
export type BackoffPolicy = (failedAttempts: number) => number | null;

/**
 * Exponential backoff: `baseS · factor^(n−1)`, capped at `maxS`, for `maxAttempts` attempts in all.
 * @example exponentialBackoff({ baseS: 5, factor: 4, maxS: 3600, maxAttempts: 5 })(2) === 20
 */
export function exponentialBackoff(p: { baseS: number; factor: number; maxS: number; maxAttempts: number }): BackoffPolicy {
  return (n) => (n >= p.maxAttempts ? null : Math.min(p.maxS, p.baseS * p.factor ** (n - 1)));
}

/**
 * A fixed schedule with jitter: entry n−1 follows failure n, ±`jitter` (a ratio); null once spent.
 * @param random a [0, 1) source (injectable for tests)
 */
export function scheduledBackoff(scheduleS: readonly number[], jitter: number, random: () => number = Math.random): BackoffPolicy {
  return (n) => {
    const base = scheduleS[n - 1];
    return base === undefined ? null : base * (1 + (random() * 2 - 1) * jitter);
  };
}

/**
 * Upkeep of this node run by its polling loop (e.g. resuming parked jobs once this node's model
 * files appear). Cluster-wide periodic work is a job of the scheduler instead (src/jobs/scheduler.ts).
 */
export type UpkeepTask = { name: string; everyMs: number; run: () => Promise<unknown> };

export interface PollingLoop {
  /** Starts the loop. */
  start(): void;
  /** Makes the loop look for work now instead of sleeping (call after committing new work). */
  nudge(): void;
  /** Stops the loop and waits for the step in progress. */
  stop(): Promise<void>;
  /** When the loop last began a turn (ms, system clock), or null while it is not running: readiness. */
  lastTurnMs(): number | null;
}

/**
 * One loop for one queue: `step()` claims and starts work; when it returns true (it found work)
 * the loop steps again at once, otherwise it sleeps `pollMs` or until nudged. A nudge during a
 * step makes the next sleep return at once, so no nudge is lost. `periodic` tasks run from the
 * loop when due by `clock` (first run one period after start); a failing step or task is logged
 * and the loop goes on.
 */
export function createPollingLoop(opts: {
  name: string;
  pollMs: number;
  log: Logger;
  clock: Clock;
  step: () => Promise<boolean>;
  periodic?: UpkeepTask[];
}): PollingLoop {
  let running = false;
  let signaled = false;
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  let lastTurn: number | null = null;
  const next = new Map<string, number>();

  async function upkeep(): Promise<void> {
    for (const t of opts.periodic ?? []) {
      const now = opts.clock.nowMs();
      if (now < (next.get(t.name) ?? 0)) continue;
      next.set(t.name, now + t.everyMs);
      try {
        await t.run();
      } catch (err) {
        opts.log.error(`${opts.name}: ${t.name} failed`, { error: String(err) });
      }
    }
  }

  async function sleep(ms: number): Promise<void> {
    if (signaled) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = null;
  }

  async function run(): Promise<void> {
    while (running) {
      lastTurn = Date.now();
      signaled = false;
      await upkeep();
      let more = false;
      try {
        more = await opts.step();
      } catch (err) {
        opts.log.error(`${opts.name}: claim failed`, { error: String(err) });
      }
      if (!more && running) await sleep(opts.pollMs);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      for (const t of opts.periodic ?? []) next.set(t.name, opts.clock.nowMs() + t.everyMs);
      loop = run();
    },
    nudge() {
      signaled = true;
      wake?.();
    },
    async stop() {
      running = false;
      signaled = true;
      wake?.();
      await loop;
      lastTurn = null;
    },
    lastTurnMs: () => (running ? lastTurn : null),
  };
}
