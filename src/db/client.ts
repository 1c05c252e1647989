/**
 * @module db/client
 * Opens the database behind Kysely — the embedded SQLite file (Bun's built-in driver, WAL mode;
 * the default) or PostgreSQL (`db/postgres.ts`, DESIGN §11) — and applies the static migrations.
 * Engine-specific details (pragmas, pools, locks) stay in this folder.
 */
import { Database as SqliteDatabase } from "bun:sqlite";
import fs from "node:fs";
import path from "node:path";
import { Kysely, SqliteDialect, sql } from "kysely";
import { Migrator, type MigrationResultSet } from "kysely";
import { isPostgres, isPostgresUrl } from "./dialect.ts";
import { registerSqliteHandle } from "./direct.ts";
import { migrations } from "./migrations/index.ts";
import { MIGRATE_LOCK_KEY, openPostgres, useBinaryCollation } from "./postgres.ts";
import type { Database } from "./schema.ts";
import { EARSHOT_VERSION } from "../config.ts";
import { isDatabaseUnavailable } from "./availability.ts";

export type Db = Kysely<Database>;

/** SQLite's `synchronous` in WAL mode (`EARSHOT_SQLITE_SYNCHRONOUS`; docs/decisions/sqlite-durability.md). */
export type SqliteSynchronous = "full" | "normal";

/**
 * The WAL file is cut back to this size when SQLite rewinds it (after a spike: a large transaction,
 * a lagging checkpoint), in bytes. Twice the checkpointer's lag mark (db/checkpointer.ts), so the
 * usual rewinds under load reuse the file rather than cut and grow it each time.
 */
export const JOURNAL_SIZE_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * Opens the database Earshot runs on: callers pass `config.databaseUrl ?? config.dbFile`.
 * @param target a `postgres://` (or `postgresql://`) URL, or the path of the SQLite file
 * @param opts.synchronous SQLite only: `full` (default: a commit is synced before it returns) or `normal`
 * @returns a Kysely instance; call `db.destroy()` to close it
 */
export function openDatabase(target: string, opts: { synchronous?: SqliteSynchronous } = {}): Db {
  return isPostgresUrl(target) ? openPostgres(target) : openSqlite(target, opts.synchronous ?? "full");
}

/**
 * Opens (creating when missing) the SQLite file with WAL, foreign keys, a busy timeout and
 * secure delete.
 * @param file absolute path of `earshot.db`; its folder is created
 * @param synchronous `full`: every commit syncs the WAL (survives a power cut); `normal`: only checkpoints do
 */
function openSqlite(file: string, synchronous: SqliteSynchronous): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file, { create: true, strict: false });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec(`PRAGMA synchronous = ${synchronous === "normal" ? "NORMAL" : "FULL"}`);
  sqlite.exec(`PRAGMA journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  // Deleted rows are overwritten with zeros, so an erased response leaves no bytes in the file's
  // free space (docs/api.md, "Erasure").
  sqlite.exec("PRAGMA secure_delete = ON");
  // Kysely's SqliteDialect speaks the better-sqlite3 API, which bun:sqlite statements provide.
  // `query()` caches each prepared statement by its SQL text, so a request does not re-prepare
  // its statements (about a quarter of a simple GET's CPU time, bench/api.ts). The set of SQL
  // texts is fixed by the code, so the cache stays small.
  // Transactions begin IMMEDIATE: they take the write lock first, so a transaction that reads and
  // then writes waits (busy_timeout) for another process's write instead of failing with
  // SQLITE_BUSY_SNAPSHOT when that write commits between its read and its write.
  const database = { prepare: (text: string) => sqlite.query(text === "begin" ? "begin immediate" : text), close: () => sqlite.close() };
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: database as never }) });
  registerSqliteHandle(db, sqlite);
  return db;
}

/**
 * True when exactly the migrations of the static index are recorded as applied (readiness,
 * `GET /healthz/ready`). False for a new database, one with pending migrations, or one migrated by
 * a newer version.
 * @throws nothing but what an unreachable database throws
 */
export async function migrationsUpToDate(db: Db): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const known = Object.keys(migrations);
    return rows.length === known.length && rows.every((r) => r.name in migrations);
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw err;
    return false; // no migration table yet
  }
}

/** True when exactly the migrations of the static index are recorded as applied. */
async function isUpToDate(db: Db): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const applied = new Set(rows.map((r) => r.name));
    const known = Object.keys(migrations);
    // Exactly the index: a database migrated by a newer version goes to the Migrator, which refuses it.
    return applied.size === known.length && known.every((name) => applied.has(name));
  } catch {
    return false; // no migration table yet: a new database
  }
}

/**
 * Applies every pending migration of the static index, in name order.
 * @throws Error naming the failed migration
 */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  // The usual start: everything applied. One read says so; Kysely's Migrator would first inspect
  // the schema and take its lock (~15 ms of every start, bench/startup.ts).
  if (await isUpToDate(db)) return { results: [] };
  await refuseNewerDatabase(db);
  if (isPostgres(db)) {
    // Nodes starting together: one migrates, the others wait here and then find nothing to do
    // (Kysely's own lock is taken only after it creates its tables, which can race).
    return db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${sql.lit(MIGRATE_LOCK_KEY)})`.execute(conn);
      try {
        if (await isUpToDate(conn)) return { results: [] };
        const result = await runMigrator(conn);
        await useBinaryCollation(conn);
        await recordVersion(conn);
        return result;
      } finally {
        await sql`select pg_advisory_unlock(${sql.lit(MIGRATE_LOCK_KEY)})`.execute(conn);
      }
    });
  }
  const result = await runMigrator(db);
  if (result.results?.length) await recordVersion(db);
  // What the migrations wrote goes into the file now, so a new appliance starts with an empty WAL
  // (db/checkpointer.ts starts its worker by the WAL's backlog: it stays idle until real writes).
  if (result.results?.length) await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  return result;
}

/** The settings key holding the version of the last Earshot that applied migrations. */
const MIGRATED_BY_KEY = "migrated_by_version";

/** A database migrated by a newer Earshot than this build (migrations are forward-only: docs/upgrading.md). */
export class NewerDatabaseError extends Error {}

async function recordVersion(db: Db): Promise<void> {
  await db
    .insertInto("settings")
    .values({ key: MIGRATED_BY_KEY, value: EARSHOT_VERSION })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value: EARSHOT_VERSION }))
    .execute();
}

/**
 * Refuses a database that has migrations this build does not know: a newer Earshot migrated it,
 * and this one would misread what it wrote.
 * @throws NewerDatabaseError naming both versions and the unknown migrations
 */
async function refuseNewerDatabase(db: Db): Promise<void> {
  let names: string[];
  try {
    names = (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((r) => r.name);
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw err;
    return; // a new database
  }
  const unknown = names.filter((n) => !(n in migrations)).sort();
  if (!unknown.length) return;
  const row = await db.selectFrom("settings").select("value").where("key", "=", MIGRATED_BY_KEY).executeTakeFirst();
  const newer = row ? `Earshot ${row.value}` : "a newer Earshot";
  throw new NewerDatabaseError(
    `This database was migrated by ${newer}, newer than this Earshot ${EARSHOT_VERSION}: it has ${unknown.length === 1 ? "a migration" : "migrations"} this version does not know (${unknown.join(", ")}). ` +
      `Migrations are forward-only: run ${newer} or later, or restore the backup taken before the upgrade (docs/upgrading.md).`,
  );
}

async function runMigrator(db: Db): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`Migration ${failed} failed: ${String(result.error)}`);
  }
  return result;
}
