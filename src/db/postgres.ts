/**
 * @module db/postgres
 * Earshot on PostgreSQL 15+ (DESIGN §11, docs/decisions/postgres.md): Kysely's `PostgresDialect`
 * over a `pg.Pool`, with two Earshot rules built into the driver so no call site changes:
 * - int8 (`count(*)`, `sum(…)` of integers) and numeric arrive as JS numbers, as SQLite gives them
 *   (type parsers set on this pool only, not globally);
 * - a plain `db.transaction().execute(…)` begins and takes one transaction-scoped advisory lock
 *   ({@link WRITE_LOCK_KEY}), so write transactions are serial across every node, like SQLite's
 *   `BEGIN IMMEDIATE`. A transaction started with an explicit isolation level
 *   (`.setIsolationLevel("read committed")`) takes no lock: it is for the few paths that are safe
 *   under concurrency by construction (`FOR UPDATE SKIP LOCKED` claims, counter upserts).
 */
import type pg from "pg";
import {
  CompiledQuery,
  Kysely,
  sql,
  PostgresDialect,
  PostgresDriver,
  type DatabaseConnection,
  type Driver,
  type PostgresDialectConfig,
  type TransactionSettings,
} from "kysely";
import type { Database } from "./schema.ts";
import { statementNames } from "./prepared.ts";

/** The advisory lock key every plain write transaction takes (`pg_advisory_xact_lock`); "earsh" in ASCII, then 1. */
export const WRITE_LOCK_KEY = 0x65_61_72_73_68_01;

/** The advisory lock key held while migrations run (a session lock, released afterwards). */
export const MIGRATE_LOCK_KEY = 0x65_61_72_73_68_02;

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** Type parsers of Earshot's pools: int8 and numeric as JS numbers, everything else as `pg` (the module given) parses it. */
function typesOf(driver: typeof pg): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: "text" | "binary") => {
      if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => (value === null ? null : Number(value));
      return driver.types.getTypeParser(oid, format as "text");
    }) as pg.CustomTypesConfig["getTypeParser"],
  };
}

/**
 * A query's parameters without U+0000 in strings: PostgreSQL's `text` cannot hold it (SQLite's
 * can), and a NUL in a search term or a typed answer must not turn into a 500.
 */
function withoutNul(query: CompiledQuery): CompiledQuery {
  if (!query.parameters.some((p) => typeof p === "string" && p.includes("\u0000"))) return query;
  return { ...query, parameters: query.parameters.map((p) => (typeof p === "string" ? p.replaceAll("\u0000", "") : p)) };
}

/**
 * `pg`'s client class, but the compiled-once queries of db/prepared.ts run as named statements:
 * PostgreSQL parses and plans each once per connection, not at every execution.
 */
function namedStatementClient(driver: typeof pg): typeof pg.Client {
  class NamedStatementClient extends driver.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads; Kysely calls query(text, values)
    override query(config: any, values?: any, callback?: any): any {
      const name = typeof config === "string" && callback === undefined ? statementNames.get(config) : undefined;
      return name ? super.query({ name, text: config, values }) : super.query(config, values, callback);
    }
  }
  return NamedStatementClient as typeof pg.Client;
}

const patched = new WeakSet<DatabaseConnection>();

/** A plain transaction's begin: `begin` and the write lock, in one round trip. */
const BEGIN_LOCKED = CompiledQuery.raw(`begin; select pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);

/** `PostgresDriver` whose plain transactions take the write lock (module comment), and whose parameters hold no NUL. */
class EarshotPostgresDriver extends PostgresDriver {
  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    if (!patched.has(connection)) {
      const execute = connection.executeQuery.bind(connection);
      connection.executeQuery = (query) => execute(withoutNul(query));
      patched.add(connection);
    }
    return connection;
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.isolationLevel || settings.accessMode) return super.beginTransaction(connection, settings);
    // One round trip: without parameters `pg` sends both statements in one simple query.
    try {
      await connection.executeQuery(BEGIN_LOCKED);
    } catch (err) {
      // `begin` may have run before the lock wait failed (lock_timeout, statement_timeout, a
      // cancel): Kysely will not roll back a transaction that "never began", so do it here, or the
      // connection would go back to the pool inside an aborted transaction (25P02 on every query).
      await connection.executeQuery(CompiledQuery.raw("rollback")).catch(() => {});
      throw err;
    }
  }
}

class EarshotPostgresDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;
  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new EarshotPostgresDriver(this.#config);
  }
}

const pools = new WeakMap<Kysely<Database>, () => pg.Pool | null>();

/**
 * The connection pool behind an instance from {@link openPostgres} (null before its first query,
 * or for another instance): its counts are `/metrics`' pool gauges.
 */
export function postgresPoolOf(db: Kysely<Database>): Pick<pg.Pool, "totalCount" | "idleCount" | "waitingCount"> | null {
  return pools.get(db)?.() ?? null;
}

/**
 * Opens a pool of connections to the PostgreSQL database at `url` (connections are made on first
 * use, so this never throws for an unreachable server; the first query does).
 * @param url `postgres://user:pass@host:port/db` (or `postgresql://`)
 * @param options.max the pool's size (default 10)
 * @returns a Kysely instance; `db.destroy()` ends the pool
 */
export function openPostgres(url: string, options: { max?: number } = {}): Kysely<Database> {
  // `pg` is imported when the first query needs the pool (Kysely calls this once), so a SQLite
  // appliance never evaluates it at start (bench/startup.ts).
  let made: pg.Pool | null = null;
  const pool = async (): Promise<pg.Pool> => {
    const { default: driver } = await import("pg");
    const created = new driver.Pool({
      connectionString: url,
      types: typesOf(driver),
      Client: namedStatementClient(driver),
      max: options.max ?? 10,
      idleTimeoutMillis: 10_000,
      // A database host that drops packets must not hang requests for minutes: a new connection
      // gives up after 5 s (the request answers 503 DATABASE_UNAVAILABLE) and TCP keep-alive
      // notices a dead peer under an open connection.
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      application_name: "earshot",
    });
    // An idle connection that breaks (the server restarted) must not crash the process: the pool
    // drops it and the next query connects again or fails with its own error.
    created.on("error", () => {});
    // A connection that dies while lent out (server restart, terminated backend) emits `error` on
    // its client: the query in flight is rejected on its own, the pool drops the client when it is
    // released; without a listener the event would be an uncaught exception.
    created.on("connect", (client) => client.on("error", () => {}));
    made = created;
    return created;
  };
  const db = new Kysely<Database>({ dialect: new EarshotPostgresDialect({ pool }) });
  pools.set(db, () => made);
  return db;
}

/**
 * Gives every `text` column of the current schema the "C" collation, unless the database's own
 * collation already orders by code point (libc `C`, `POSIX`, `C.UTF-8`): text then compares and sorts
 * byte by byte as on SQLite (ISO timestamps, prefix ranges such as `action >= 'link.'`, keys), and
 * `lower()` on a column folds ASCII only, as SQLite's does — whatever locale the operator's
 * database was created with. Run after migrations (idempotent: columns already "C" are skipped),
 * so columns added by later migrations are covered too.
 */
export async function useBinaryCollation(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{
    collate: string;
    provider: string;
  }>`SELECT datcollate AS collate, datlocprovider::text AS provider FROM pg_database WHERE datname = current_database()`.execute(db);
  if (rows[0]?.provider === "c" && /^(C|POSIX|C\.UTF-?8)$/i.test(rows[0].collate)) return;
  await sql`DO $$ DECLARE r record; BEGIN
    FOR r IN SELECT c.table_name, c.column_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.data_type = 'text'
        AND coalesce(c.collation_name, '') <> 'C'
    LOOP
      BEGIN
        EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE text COLLATE "C"', r.table_name, r.column_name);
      EXCEPTION WHEN feature_not_supported THEN
        NULL; -- a column named in a trigger's UPDATE OF list (answers.text, .transcription): only searched, never ordered
      END;
    END LOOP;
  END $$`.execute(db);
}
