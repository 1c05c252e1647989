/**
 * @module db/engine
 * The engine seam (issue 23 step 4; docs/architecture.md "The engine seam"): every difference
 * between the database engines that code outside `src/db/` must know is a named capability of
 * one {@link Engine} object, and the two engines' values stand side by side below (the way
 * Umami's query files name their variants). Code outside `src/db/` asks `engineOf(db).<capability>`
 * and never which engine it is (test/architecture.test.ts forbids `isPostgres` and the dialect
 * check there), so a new engine is a third object here plus its driver, migrations and SQL
 * variants — not a hunt through the features.
 */
import { sql, type Kysely, type RawBuilder, type Transaction } from "kysely";
import { dialectOf, isPostgresUrl, type Dialect } from "./dialect.ts";
import { postgresPoolOf } from "./postgres.ts";

type Q = Kysely<any> | Transaction<any>;

/** Connection-pool counts (`/metrics`): idle and total connections, queries waiting for one. */
export type PoolStats = { idle: number; total: number; waiting: number };

/** What an engine can do, by name. */
export interface Engine {
  /** The engine's name, as `/healthz` reports it (`database.kind`) and as SQL-variant tables are keyed. */
  readonly name: Dialect;
  /**
   * One process owns the database (SQLite): at start it releases every lease (no other claimer
   * can hold one), and rate limiters and the login throttle count in this process's memory.
   * False: several nodes share the database, so leases expire by themselves and counters live in it.
   */
  readonly singleProcess: boolean;
  /**
   * The database is one file on this machine (SQLite): `earshot backup` snapshots it, the WAL
   * checkpointer (per file, so per process) copies its WAL back, `/metrics` measures the WAL.
   */
  readonly singleFile: boolean;
  /** Blobs live in the database (chunked rows) rather than as files under `<data_dir>/blobs`. */
  readonly blobsInDatabase: boolean;
  /**
   * Claims lock the rows they take and skip those others locked (`FOR UPDATE SKIP LOCKED`) in a
   * READ COMMITTED transaction that stays out of the global write lock, so nodes claim at once.
   * False: a claim is one write transaction holding the engine's single write lock.
   */
  readonly rowLocks: boolean;
  /**
   * Savepoints are cheap, so a batch of writes can undo one failed unit alone. False on SQLite:
   * FTS5 flushes its pending index segment at each savepoint (modules/intake/write-batch.ts).
   */
  readonly cheapSavepoints: boolean;
  /**
   * Connections come from a pool to a database server: `/metrics` reports the pool's use
   * ({@link poolStats}) and the backends waiting for a lock ({@link lockWaits}).
   */
  readonly connectionPool: boolean;
  /**
   * The transaction a claim runs in (see {@link rowLocks}), and any write that is safe under
   * concurrency by construction (row or keyed locks): `.execute(fn)` it.
   */
  claimTransaction<DB>(db: Kysely<DB>): ReturnType<Kysely<DB>["transaction"]>;
  /** ` FOR UPDATE SKIP LOCKED` after a claim's SELECT, or nothing (see {@link rowLocks}). */
  readonly skipLocked: RawBuilder<unknown>;
  /** The same, locking only the rows of table alias `alias` (`FOR UPDATE OF d SKIP LOCKED`), as text. */
  skipLockedOf(alias: string): string;
  /** Rewrites a statement text written with `?` placeholders into the engine's own (`$1, $2, …` on PostgreSQL). */
  placeholders(text: string): string;
  /**
   * Takes a lock held until the transaction ends, so claims of every node see each other's
   * commits in order; nothing on SQLite, whose write transaction already holds the one lock.
   * @param key a 48-bit integer naming the lock
   */
  transactionLock(trx: Transaction<any>, key: number): Promise<void>;
  /**
   * Takes a lock on (`space`, `key`) held until the transaction ends: writers of one key queue,
   * writers of other keys do not; nothing on SQLite (one writer at a time already).
   * @param space a 32-bit integer naming the kind of key
   */
  keyedLock(trx: Transaction<any>, space: number, key: string): Promise<void>;
  /**
   * Runs `fn` in a transaction whose commit may be lost in a database crash (counters that are
   * approximate anyway): on PostgreSQL READ COMMITTED without waiting for the WAL flush; on SQLite
   * the ordinary write transaction.
   */
  lossyTransaction<DB, T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
  /** The connection pool's counts, or null when there is none (yet: it is made on the first query). */
  poolStats(db: Kysely<any>): PoolStats | null;
  /** Backends of this database waiting for a lock now (0 without a {@link connectionPool}). */
  lockWaits(db: Kysely<any>): Promise<number>;
}

const sqlite: Engine = {
  name: "sqlite",
  singleProcess: true,
  singleFile: true,
  blobsInDatabase: false,
  rowLocks: false,
  cheapSavepoints: false,
  connectionPool: false,
  claimTransaction: (db) => db.transaction(),
  skipLocked: sql``,
  skipLockedOf: () => "",
  placeholders: (text) => text,
  transactionLock: async () => {},
  keyedLock: async () => {},
  lossyTransaction: (db, fn) => db.transaction().execute(fn),
  poolStats: () => null,
  lockWaits: async () => 0,
};

const postgres: Engine = {
  name: "postgres",
  singleProcess: false,
  singleFile: false,
  blobsInDatabase: true,
  rowLocks: true,
  cheapSavepoints: true,
  connectionPool: true,
  // An explicit isolation level takes no global write lock (db/postgres.ts).
  claimTransaction: (db) => db.transaction().setIsolationLevel("read committed"),
  skipLocked: sql` FOR UPDATE SKIP LOCKED`,
  skipLockedOf: (alias) => ` FOR UPDATE OF ${alias} SKIP LOCKED`,
  placeholders: (text) => {
    let i = 0;
    return text.replace(/\?/g, () => `$${++i}`);
  },
  transactionLock: async (trx, key) => {
    await sql`SELECT pg_advisory_xact_lock(${key})`.execute(trx);
  },
  keyedLock: async (trx, space, key) => {
    await sql`SELECT pg_advisory_xact_lock(${space}, hashtext(${key}))`.execute(trx);
  },
  lossyTransaction: (db, fn) =>
    db
      .transaction()
      .setIsolationLevel("read committed")
      .execute(async (trx) => {
        await sql`SET LOCAL synchronous_commit = off`.execute(trx);
        return fn(trx);
      }),
  poolStats: (db) => {
    const pool = postgresPoolOf(db);
    return pool ? { idle: pool.idleCount, total: pool.totalCount, waiting: pool.waitingCount } : null;
  },
  lockWaits: async (db) => {
    const { rows } = await sql<{
      n: number | string;
    }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
    return Number(rows[0]?.n ?? 0);
  },
};

const ENGINES: Record<Dialect, Engine> = { sqlite, postgres };

/** The engine behind `db` (a Kysely instance or a transaction). */
export function engineOf(db: Q): Engine {
  return ENGINES[dialectOf(db)];
}

/**
 * The engine a database target names, before opening it (commands that refuse an engine early).
 * @param target what `openDatabase` takes: `config.databaseUrl ?? config.dbFile`
 */
export function engineNamedBy(target: string): Engine {
  return isPostgresUrl(target) ? postgres : sqlite;
}

/**
 * True when `url` names a database server Earshot runs on (`postgres://` or `postgresql://`), as
 * `--database-url` and `EARSHOT_DATABASE_URL` take; anything else is an SQLite file path.
 */
export function isDatabaseUrl(url: string | undefined | null): url is string {
  return isPostgresUrl(url);
}
