/**
 * @module db/definition-cache
 * Rows read on every request that change rarely — an API key with its workspace, a link with its
 * questions — kept in memory and trusted while the database's definition counter has not moved
 * (migration 2026-12-01T0000: triggers raise it with every change of `workspaces`, `links`,
 * `questions` and the API-key columns, whoever writes). A request then reads that one row instead
 * of two or three (bench/api.ts, bench/intake.ts in docs/performance.md).
 *
 * Exact by construction: the counter is read before the rows it vouches for, so an entry is never
 * older than its version. Only reads on the root database instance are cached: inside a
 * transaction the counter may hold that transaction's uncommitted (and perhaps rolled back) value,
 * so there the caller reads the rows themselves.
 */
import { prepared } from "./prepared.ts";
import type { Executor } from "./schema.ts";

const versionRow = prepared(0, (db) => db.selectFrom("definition_version").select("version"));

/**
 * The database's definition counter, or null inside a transaction (do not cache there).
 * @throws whatever the database throws (db/availability.ts maps an outage)
 */
export async function definitionVersion(db: Executor): Promise<number | null> {
  if (db.isTransaction) return null;
  const [row] = await versionRow(db);
  return row ? Number(row.version) : null;
}

/** Bounded maps, one per database, of values read at a definition version. */
export interface DefinitionCache<V> {
  /** The value stored for `key` of `db` at exactly `version`, else undefined. */
  get(db: Executor, key: string, version: number | null): V | undefined;
  /** Stores `value` (frozen: callers share it) as read from `db` at `version`; nothing when `version` is null. */
  set(db: Executor, key: string, version: number | null, value: V): void;
}

/**
 * @param maxEntries the most keys kept per database; the oldest stored goes first (default 1,000)
 */
export function createDefinitionCache<V extends object>(maxEntries = 1000): DefinitionCache<V> {
  const byDb = new WeakMap<object, Map<string, { version: number; value: V }>>();
  return {
    get(db, key, version) {
      if (version === null) return undefined;
      const e = byDb.get(db)?.get(key);
      return e && e.version === version ? e.value : undefined;
    },
    set(db, key, version, value) {
      if (version === null) return;
      let entries = byDb.get(db);
      if (!entries) byDb.set(db, (entries = new Map()));
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { version, value: deepFreeze(value) });
    },
  };
}

/** Freezes `value` and every object under it. @returns `value` */
export function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (v && typeof v === "object" && !Object.isFrozen(v)) deepFreeze(v);
  return Object.freeze(value);
}
