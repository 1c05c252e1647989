/**
 * @module db/direct
 * The bun:sqlite handle behind a SQLite Kysely instance, so the compiled-once statements of the
 * hot paths (db/prepared.ts) can run their cached statement on it directly instead of through
 * Kysely's driver (connection mutex, result transformation and several promise hops: ~4–5 µs of a
 * 4–15 µs statement, bench/api.ts). Registered by the instance's adapter, which its transactions
 * share; an instance with plugins (which may transform results) always goes through Kysely.
 */
import type { Database as SqliteDatabase } from "bun:sqlite";

/** What this module reads of a Kysely instance or transaction. */
type Instance = { getExecutor(): { adapter: object; plugins: readonly unknown[] }; isTransaction: boolean };

const handles = new WeakMap<object, SqliteDatabase>();

/** Records `handle` as the connection behind `db` and its transactions (called by db/client.ts when it opens SQLite). */
export function registerSqliteHandle(db: Instance, handle: SqliteDatabase): void {
  handles.set(db.getExecutor().adapter, handle);
}

/**
 * The connection behind `db` when a statement may run on it directly now:
 * - the root instance, while no transaction is open on the connection — while one is (another
 *   request's `BEGIN IMMEDIATE`, awaiting between its statements) a statement must wait for
 *   Kysely's connection mutex instead, or it would read that transaction's uncommitted rows or
 *   write into it;
 * - a transaction, which is taken to be the open one: SQLite has one connection and Kysely's mutex
 *   lets one transaction at a time hold it, so a transaction object in use is the open one — unless
 *   code keeps using it after its callback returned (a controlled transaction that ended is refused
 *   here as Kysely refuses it; a plain one used after its callback is a caller's bug either way).
 * @returns the handle, or null when the caller must go through Kysely
 */
export function directSqlite(db: Instance): SqliteDatabase | null {
  const executor = db.getExecutor();
  if (executor.plugins.length) return null;
  const handle = handles.get(executor.adapter);
  if (!handle || handle.inTransaction !== db.isTransaction) return null;
  // A controlled transaction already committed or rolled back: Kysely refuses it; so do we.
  const ended = db as { isCommitted?: boolean; isRolledBack?: boolean };
  return ended.isCommitted || ended.isRolledBack ? null : handle;
}

/** The connection behind a registered SQLite instance, whatever its state; null otherwise (PostgreSQL). */
export function sqliteHandleOf(db: Instance): SqliteDatabase | null {
  return handles.get(db.getExecutor().adapter) ?? null;
}
