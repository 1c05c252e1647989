/**
 * @module auth/login-throttle
 * Sign-in throttling (DESIGN §10): 5 failures per account or 20 per client address within 15
 * minutes refuse further attempts — right or wrong password — with 429 and `Retry-After` until the
 * oldest counted failure leaves the window. On SQLite in memory, like the API rate limits: one
 * process serves the appliance, and a restart forgiving the counts is acceptable. On PostgreSQL
 * several nodes serve the same accounts (DESIGN §11), so the failures are rows of `login_failures`,
 * checked and counted in one READ COMMITTED transaction that holds a transaction-scoped advisory lock
 * per account and per address key: the limits hold across every node together, and concurrent
 * attempts on different nodes see each other.
 *
 * An attempt counts as a failure from the moment it begins (before the slow password check), and
 * is taken back only when it succeeds: so parallel attempts see each other, and 40 concurrent
 * guesses get 5 checks, not 40.
 */
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { systemClock, type Clock } from "../clock.ts";
import { engineOf } from "../db/engine.ts";
import type { Database } from "../db/schema.ts";

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

/** One counted attempt: `succeeded()` takes it back (and forgets the account's failures). */
export type LoginAttempt = { succeeded(): void | Promise<void> };

type Begun = { retryAfterS: number } | { attempt: LoginAttempt };

export interface LoginThrottle {
  /**
   * Checks both limits and, when neither is reached, counts this attempt as a failure against the
   * account and the address until `succeeded()` is called on the returned attempt.
   * @returns `{ retryAfterS }` (≥ 1 s, nothing counted) when throttled, else `{ attempt }`
   */
  begin(account: string, address: string | null, nowMs?: number): Begun | Promise<Begun>;
  /** Forgets the account's failures (after a password reset). */
  forget(account: string): void | Promise<void>;
  /** Keys held in memory (accounts + addresses with failures in the window; 0 for the shared store); for tests and diagnostics. */
  size(): number;
}

/** The in-memory throttle: answers synchronously. */
export interface LocalLoginThrottle extends LoginThrottle {
  begin(account: string, address: string | null, nowMs?: number): Begun;
  forget(account: string): void;
}

/**
 * The throttle for `opts.db`: shared through the database on PostgreSQL, else in memory.
 * @param opts.clock time source of the shared throttle (default the system clock)
 */
export function createLoginThrottle(): LocalLoginThrottle;
export function createLoginThrottle(opts: { db: Kysely<Database>; clock?: Clock }): LoginThrottle;
export function createLoginThrottle(opts?: { db: Kysely<Database>; clock?: Clock }): LoginThrottle {
  return opts && !engineOf(opts.db).singleProcess ? createSharedLoginThrottle(opts.db, opts.clock ?? systemClock) : createMemoryLoginThrottle();
}

/**
 * A sliding-window failure counter per account (lowercased email) and per address. Keys whose
 * failures all left the window are swept at most once a window, so the map stays bounded by the
 * attempts of the last 15–30 minutes.
 */
function createMemoryLoginThrottle(): LocalLoginThrottle {
  const failures = new Map<string, number[]>();
  let lastSweep = 0;
  const recent = (key: string, nowMs: number) => {
    const list = (failures.get(key) ?? []).filter((t) => nowMs - t < LOGIN_WINDOW_MS);
    if (list.length) failures.set(key, list);
    else failures.delete(key);
    return list;
  };
  const wait = (key: string, max: number, nowMs: number) => {
    const list = recent(key, nowMs);
    if (list.length < max) return 0;
    return Math.max(1, Math.ceil((list[list.length - max]! + LOGIN_WINDOW_MS - nowMs) / 1000));
  };
  const sweep = (nowMs: number) => {
    if (nowMs - lastSweep < LOGIN_WINDOW_MS) return;
    lastSweep = nowMs;
    for (const [key, list] of failures) {
      if (list.every((t) => nowMs - t >= LOGIN_WINDOW_MS)) failures.delete(key);
    }
  };
  const takeBack = (key: string, stamp: number) => {
    const list = failures.get(key);
    const at = list?.lastIndexOf(stamp) ?? -1;
    if (!list || at < 0) return;
    list.splice(at, 1);
    if (list.length === 0) failures.delete(key);
  };
  return {
    begin(account, address, nowMs = Date.now()) {
      sweep(nowMs);
      const accountKey = `a:${account}`;
      const addressKey = `ip:${address ?? "unknown"}`;
      const retryAfterS = Math.max(wait(accountKey, MAX_FAILURES_PER_ACCOUNT, nowMs), wait(addressKey, MAX_FAILURES_PER_ADDRESS, nowMs));
      if (retryAfterS > 0) return { retryAfterS };
      for (const key of [accountKey, addressKey]) failures.set(key, [...recent(key, nowMs), nowMs]);
      return {
        attempt: {
          succeeded() {
            failures.delete(accountKey);
            takeBack(addressKey, nowMs);
          },
        },
      };
    },
    forget(account) {
      failures.delete(`a:${account}`);
    },
    size: () => failures.size,
  };
}

/** Advisory-lock namespace of the shared throttle's keys (two-key form: no clash with other locks). */
const THROTTLE_LOCK_SPACE = 0x0e5a_7101;

/**
 * The shared throttle (PostgreSQL): the same rules over `login_failures` rows. `begin` locks the
 * account key, then the address key (always in that order, so two attempts cannot deadlock), counts
 * each key's failures in the window, and inserts one row per key when neither limit is reached.
 * Rows older than the window are deleted at most once a window per node.
 */
function createSharedLoginThrottle(db: Kysely<Database>, clock: Clock): LoginThrottle {
  let lastSweep = 0;
  const waitOf = async (trx: Kysely<Database>, key: string, max: number, nowMs: number): Promise<number> => {
    // The max-th newest failure in the window: once it leaves, the key is below its limit again.
    const row = await trx
      .selectFrom("login_failures")
      .select("at_ms")
      .where("key", "=", key)
      .where("at_ms", ">", nowMs - LOGIN_WINDOW_MS)
      .orderBy("at_ms", "desc")
      .offset(max - 1)
      .limit(1)
      .executeTakeFirst();
    return row ? Math.max(1, Math.ceil((Number(row.at_ms) + LOGIN_WINDOW_MS - nowMs) / 1000)) : 0;
  };
  return {
    async begin(account, address, nowMs = clock.nowMs()) {
      if (nowMs - lastSweep >= LOGIN_WINDOW_MS) {
        lastSweep = nowMs;
        await db
          .deleteFrom("login_failures")
          .where("at_ms", "<=", nowMs - LOGIN_WINDOW_MS)
          .execute();
      }
      const accountKey = `a:${account}`;
      const addressKey = `ip:${address ?? "unknown"}`;
      const ids = { account: randomUUID(), address: randomUUID() };
      const engine = engineOf(db);
      const retryAfterS = await engine.claimTransaction(db).execute(async (trx) => {
        for (const key of [accountKey, addressKey]) await engine.keyedLock(trx, THROTTLE_LOCK_SPACE, key);
        const wait = Math.max(await waitOf(trx, accountKey, MAX_FAILURES_PER_ACCOUNT, nowMs), await waitOf(trx, addressKey, MAX_FAILURES_PER_ADDRESS, nowMs));
        if (wait > 0) return wait;
        await trx
          .insertInto("login_failures")
          .values([
            { id: ids.account, key: accountKey, at_ms: nowMs },
            { id: ids.address, key: addressKey, at_ms: nowMs },
          ])
          .execute();
        return 0;
      });
      if (retryAfterS > 0) return { retryAfterS };
      return {
        attempt: {
          async succeeded() {
            await db
              .deleteFrom("login_failures")
              .where((eb) => eb.or([eb("key", "=", accountKey), eb("id", "=", ids.address)]))
              .execute();
          },
        },
      };
    },
    async forget(account) {
      await db.deleteFrom("login_failures").where("key", "=", `a:${account}`).execute();
    },
    size: () => 0,
  };
}
