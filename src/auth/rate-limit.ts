/**
 * @module auth/rate-limit
 * Per-key fixed one-minute windows (DESIGN §4: RateLimit-Limit/Remaining/Reset on every
 * authenticated response, 429 with Retry-After ≥ 1 s); a window starts at the key's first request
 * after the previous one ended.
 *
 * Two stores, one rule. On SQLite a single process serves the appliance, so the windows live in
 * memory (a restart forgiving a minute's count is acceptable). On PostgreSQL several nodes serve
 * the same keys (DESIGN §11), so the window is one row per key in `rate_limit_windows`, upserted
 * atomically by whichever node takes the request (`INSERT … ON CONFLICT DO UPDATE … RETURNING`, a
 * single statement outside any transaction: the row lock orders concurrent takes), and a limit of
 * N/min holds across all nodes together; the upsert commits without waiting for the WAL flush (a
 * database crash may forget the last moments' counts, as a restart forgets the memory store's).
 * Time comes from the {@link Clock} passed in, so tests move it instead of sleeping.
 */
import { sql, type Kysely } from "kysely";
import { systemClock, type Clock } from "../clock.ts";
import { engineOf } from "../db/engine.ts";
import type { Database } from "../db/schema.ts";

const WINDOW_MS = 60_000;

export type RateDecision = { allowed: boolean; headers: Record<string, string> };

export interface RateLimiter {
  /**
   * Counts one request for `key` against `limitPerMinute` and says whether it may proceed.
   * @param nowMs the request's time (default: the limiter's clock)
   * @returns the decision — synchronously from memory, or a promise from the shared store
   */
  take(key: string, limitPerMinute: number, nowMs?: number): RateDecision | Promise<RateDecision>;
}

/** A limiter answering at once from this process's memory (intake limits, SQLite). */
export interface LocalRateLimiter extends RateLimiter {
  take(key: string, limitPerMinute: number, nowMs?: number): RateDecision;
}

/** The decision and headers for the `count`-th request of a window that started at `startMs`. */
function decide(limit: number, startMs: number, count: number, nowMs: number): RateDecision {
  const resetS = Math.max(1, Math.ceil((startMs + WINDOW_MS - nowMs) / 1000));
  const allowed = count <= limit;
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(limit),
    "RateLimit-Remaining": String(Math.max(0, limit - count)),
    "RateLimit-Reset": String(resetS),
  };
  if (!allowed) headers["Retry-After"] = String(resetS);
  return { allowed, headers };
}

/**
 * A fixed-window limiter: shared through the database when `opts.db` is PostgreSQL, else in memory.
 * @param opts.db the database (only PostgreSQL changes anything)
 * @param opts.clock time source (default the system clock)
 */
export function createRateLimiter(opts?: { clock?: Clock }): LocalRateLimiter;
export function createRateLimiter(opts: { db: Kysely<Database>; clock?: Clock }): RateLimiter;
export function createRateLimiter(opts: { db?: Kysely<Database>; clock?: Clock } = {}): RateLimiter {
  const clock = opts.clock ?? systemClock;
  return opts.db && !engineOf(opts.db).singleProcess ? createSharedRateLimiter(opts.db, clock) : createMemoryRateLimiter(clock);
}

/** The in-memory store (one process). Only allowed requests count, so a refused burst does not extend the wait. */
function createMemoryRateLimiter(clock: Clock): LocalRateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  return {
    take(key, limit, nowMs = clock.nowMs()) {
      if (nowMs - lastSweep > WINDOW_MS) {
        for (const [k, w] of windows) if (nowMs - w.start >= WINDOW_MS) windows.delete(k);
        lastSweep = nowMs;
      }
      let w = windows.get(key);
      if (!w || nowMs - w.start >= WINDOW_MS) {
        w = { start: nowMs, count: 0 };
        windows.set(key, w);
      }
      const decision = decide(limit, w.start, w.count + 1, nowMs);
      if (decision.allowed) w.count++;
      return decision;
    },
  };
}

/**
 * The shared store (PostgreSQL): one atomic upsert per request; every request counts, refused
 * ones included, which changes nothing about who is let through. Windows that ended are deleted at
 * most once a minute per node.
 */
function createSharedRateLimiter(db: Kysely<Database>, clock: Clock): RateLimiter {
  let lastSweep = 0;
  return {
    async take(key, limit, nowMs = clock.nowMs()) {
      if (nowMs - lastSweep > WINDOW_MS) {
        lastSweep = nowMs;
        await db
          .deleteFrom("rate_limit_windows")
          .where("window_start_ms", "<=", nowMs - 2 * WINDOW_MS)
          .execute();
      }
      const ended = sql<boolean>`${nowMs} - rate_limit_windows.window_start_ms >= ${WINDOW_MS}`;
      // The count may lose its last moments in a database crash (DESIGN §5 accepts that for usage
      // counts): this statement's commit does not wait for the WAL flush (`synchronous_commit` off
      // for its own implicit transaction, set in the same round trip). Durable, every request was
      // one fsync on one row per key, which capped a key at the disk's commit rate
      // (docs/performance.md, "PostgreSQL side by side").
      const row = await db
        .insertInto("rate_limit_windows")
        .columns(["key", "window_start_ms", "count"])
        .expression(
          sql`SELECT ${key}, ${nowMs}::bigint, 1 FROM (SELECT set_config('synchronous_commit', 'off', true) AS relaxed) AS relaxed WHERE relaxed.relaxed = 'off'`,
        )
        .onConflict((oc) =>
          oc.column("key").doUpdateSet({
            window_start_ms: sql<number>`CASE WHEN ${ended} THEN ${nowMs}::bigint ELSE rate_limit_windows.window_start_ms END`,
            count: sql<number>`CASE WHEN ${ended} THEN 1 ELSE rate_limit_windows.count + 1 END`,
          }),
        )
        .returning(["window_start_ms", "count"])
        .executeTakeFirstOrThrow();
      return decide(limit, Number(row.window_start_ms), Number(row.count), nowMs);
    },
  };
}
