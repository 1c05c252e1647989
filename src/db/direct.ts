/**
 * @module db/direct
 * The bun:sqlite handle behind a SQLite Kysely instance, so the few compiled-once reads on every
 * request (db/prepared.ts) can run their cached statement directly instead of through Kysely's
 * driver (connection mutex, result transformation and several promise hops: ~4–5 µs of a 4–15 µs
 * read, bench/api.ts). Only the root instance returned by `openDatabase` is registered; its
 * transactions and derived instances (`withPlugin`, …) are not, and go through Kysely.
 */
import type { Database as SqliteDatabase } from "bun:sqlite";

const handles = new WeakMap<object, SqliteDatabase>();

/** Records `handle` as the connection behind `db` (called by db/client.ts when it opens SQLite). */
export function registerSqliteHandle(db: object, handle: SqliteDatabase): void {
  handles.set(db, handle);
}

/**
 * The connection behind `db` when a statement may run on it directly now: `db` is a registered
 * SQLite root instance and no transaction is open on its connection. While one is open (another
 * request's `BEGIN IMMEDIATE` awaiting between its statements), a read must wait for Kysely's
 * connection mutex instead, or it would see that transaction's uncommitted rows.
 * @returns the handle, or null when the caller must go through Kysely
 */
export function directSqlite(db: object): SqliteDatabase | null {
  const handle = handles.get(db);
  return handle && !handle.inTransaction ? handle : null;
}

/** The connection behind a registered SQLite root instance, whatever its state; null otherwise (PostgreSQL). */
export function sqliteHandleOf(db: object): SqliteDatabase | null {
  return handles.get(db) ?? null;
}
