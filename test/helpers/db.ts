/**
 * @module test/helpers/db
 * The test suite's database engine (DESIGN §11): SQLite files by default; with
 * `EARSHOT_TEST_DATABASE_URL=postgres://…` (an admin URL of a PostgreSQL 15+ server, superuser or
 * CREATEDB) every data directory a test uses gets its own fresh PostgreSQL database, created from
 * a migrated template (`CREATE DATABASE … TEMPLATE …`, a few ms instead of migrating each time).
 * The database of a data directory is fixed by the directory's path, so a CLI command, a server
 * and a restarted server on one data directory share it, as they share `earshot.db` on SQLite.
 *
 * The template is named after a hash of the migration files, so a changed migration gets a new
 * one; parallel test processes build it once (a session advisory lock on the admin database).
 * See /work/brief/pg-harness.md or docs/decisions/postgres.md "Tests".
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { sql } from "kysely";
import { migrateToLatest, openDatabase, type Db } from "../../src/db/client.ts";
import { isPostgres } from "../../src/db/dialect.ts";

/** The admin URL of the PostgreSQL server the suite runs on, or null for SQLite. */
export const TEST_DATABASE_URL: string | null = process.env.EARSHOT_TEST_DATABASE_URL || null;

/** True when the suite runs on PostgreSQL; use in `test.skipIf(onPostgres)(…)` for SQLite-only tests (say why). */
export const onPostgres = TEST_DATABASE_URL !== null;

const MIGRATIONS_DIR = path.resolve(import.meta.dir, "../../src/db/migrations");
/** Advisory lock key (on the admin database) guarding template creation across test processes. */
const TEMPLATE_LOCK_KEY = 0x65617274706c;

let admin: pg.Pool | null = null;
let template: Promise<string> | null = null;
const created = new Map<string, Promise<string>>();

function adminPool(): pg.Pool {
  if (!TEST_DATABASE_URL) throw new Error("EARSHOT_TEST_DATABASE_URL is not set");
  if (!admin) {
    admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2, idleTimeoutMillis: 1000, allowExitOnIdle: true });
    admin.on("error", () => {});
  }
  return admin;
}

/** `TEST_DATABASE_URL` with its database name replaced. */
function urlOf(database: string): string {
  const url = new URL(TEST_DATABASE_URL!);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The template's name: a hash of every migration file, so editing one makes a new template. */
function templateName(): string {
  const hash = createHash("sha256");
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  return `earshot_tpl_${hash.digest("hex").slice(0, 16)}`;
}

async function databaseExists(client: pg.PoolClient | pg.Pool, name: string): Promise<boolean> {
  return (await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount! > 0;
}

/** Builds the migrated template once per migration set (under an advisory lock); returns its name. */
function ensureTemplate(): Promise<string> {
  template ??= (async () => {
    const name = templateName();
    const client = await adminPool().connect();
    try {
      await client.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK_KEY]);
      if (!(await databaseExists(client, name))) {
        const building = `${name}_build`;
        await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await client.query(`CREATE DATABASE ${building}`);
        const db = openDatabase(urlOf(building));
        try {
          await migrateToLatest(db);
        } finally {
          await db.destroy();
        }
        // Published by a rename, so a crashed build never leaves a half-migrated template.
        await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
      await sweepStaleDatabases(client);
      await client.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK_KEY]);
    } finally {
      client.release();
    }
    return name;
  })();
  return template;
}

/**
 * Drops test databases whose data directory is gone (the test that made them has finished; the
 * databases of spawned servers are not dropped by anyone else) and that nobody is connected to.
 * Runs once per test process, so a developer's cluster does not fill up.
 */
async function sweepStaleDatabases(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ name: string; dir: string | null }>(
    "SELECT datname AS name, shobj_description(oid, 'pg_database') AS dir FROM pg_database WHERE datname LIKE 'earshot\\_t\\_%'",
  );
  for (const { name, dir } of rows) {
    if (!dir || fs.existsSync(dir) || !/^earshot_t_[0-9a-f]{20}$/.test(name)) continue;
    await client.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => {}); // in use: left for a later sweep
  }
}

/** The database name of a data directory (fixed by its absolute path). */
function databaseNameOf(dataDir: string): string {
  return `earshot_t_${createHash("sha256").update(path.resolve(dataDir)).digest("hex").slice(0, 20)}`;
}

/**
 * The PostgreSQL URL of `dataDir`'s own database, created from the template on first use; null on
 * SQLite (the caller then uses `<dataDir>/earshot.db` as today).
 */
export async function testDatabaseUrl(dataDir: string): Promise<string | null> {
  if (!TEST_DATABASE_URL) return null;
  const name = databaseNameOf(dataDir);
  let pending = created.get(name);
  if (!pending) {
    pending = (async () => {
      const tpl = await ensureTemplate();
      const pool = adminPool();
      try {
        await pool.query(`CREATE DATABASE ${name} TEMPLATE ${tpl}`);
        // The data directory it belongs to, for sweepStaleDatabases.
        await pool.query(`COMMENT ON DATABASE ${name} IS ${pg.escapeLiteral(path.resolve(dataDir))}`);
      } catch (err) {
        if ((err as { code?: string }).code !== "42P04") throw err; // 42P04: already exists (another process made it)
      }
      return urlOf(name);
    })();
    created.set(name, pending);
    pending.catch(() => created.delete(name));
  }
  return pending;
}

/** What to pass to `openDatabase` for `dataDir`: its PostgreSQL URL, or `<dataDir>/earshot.db`. */
export async function testDatabaseTarget(dataDir: string): Promise<string> {
  return (await testDatabaseUrl(dataDir)) ?? path.join(dataDir, "earshot.db");
}

/** Opens (and migrates) `dataDir`'s database on the test engine; `db.destroy()` closes it. */
export async function openTestDatabase(dataDir: string): Promise<Db> {
  const db = openDatabase(await testDatabaseTarget(dataDir));
  await migrateToLatest(db);
  return db;
}

/** `{ EARSHOT_DATABASE_URL }` for a process working on `dataDir`, or `{}` on SQLite. */
export async function testDatabaseEnv(dataDir: string): Promise<Record<string, string>> {
  const url = await testDatabaseUrl(dataDir);
  return url ? { EARSHOT_DATABASE_URL: url } : {};
}

/** Drops `dataDir`'s PostgreSQL database if this process made one (close its pools first); no-op on SQLite. */
export async function dropTestDatabase(dataDir: string): Promise<void> {
  if (!TEST_DATABASE_URL) return;
  const name = databaseNameOf(dataDir);
  if (!created.has(name)) return;
  created.delete(name);
  await adminPool().query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/**
 * How many blobs are stored: files under `blobsDir` (SQLite's store; directories not counted) plus,
 * on PostgreSQL, the rows of `blobs` (src/blobs/, chunked `bytea`).
 */
export async function storedBlobCount(db: Db, blobsDir: string): Promise<number> {
  const files = fs.existsSync(blobsDir) ? fs.readdirSync(blobsDir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).length : 0;
  if (!isPostgres(db)) return files;
  const row = await db
    .selectFrom("blobs" as never)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return files + Number((row as { n: number }).n);
}

/** Names of every table of the database (on SQLite FTS5's shadow tables included), for scans that look for leftover data. */
export async function tableNames(db: Db): Promise<string[]> {
  const { rows } = isPostgres(db)
    ? await sql<{
        name: string;
      }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(db)
    : await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(db);
  return rows.map((r) => r.name);
}
