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
 * - a transaction, while it is the open one (its callback is running: SQLite has one connection,
 *   and Kysely's mutex lets one transaction at a time have it).
 * @returns the handle, or null when the caller must go through Kysely
 */
export function directSqlite(db: Instance): SqliteDatabase | null {
  const executor = db.getExecutor();
  if (executor.plugins.length) return null;
  const handle = handles.get(executor.adapter);
  return handle && handle.inTransaction === db.isTransaction ? handle : null;
}

/** The connection behind a registered SQLite instance, whatever its state; null otherwise (PostgreSQL). */
export function sqliteHandleOf(db: Instance): SqliteDatabase | null {
  return handles.get(db.getExecutor().adapter) ?? null;
}
