/**
 * @module commands/migrate-to-postgres
 * `earshot migrate-to-postgres --to URL` (DESIGN §11; docs/operations.md "More than one machine"):
 * copies an appliance — the SQLite database of the data directory (`--data` / EARSHOT_DATA_DIR)
 * and its recordings and files under `<data_dir>/blobs` — into a PostgreSQL database.
 *
 * 1. Both databases are migrated to this version (the appliance as `serve` would do).
 * 2. Every table both have is copied in foreign-key order (parents first; `workspace_changes`,
 *    which triggers write as rows arrive, is emptied and copied last), in batches, as upserts by primary key: a re-run updates
 *    what changed and adds what is new. Identity sequences are moved past the copied ids.
 *    Not copied: `answers_search` and `responses_hidden_search` (their triggers fill them as rows arrive), `blobs`/`blob_chunks`
 *    (step 3) and `rate_limit_windows` (a running cluster's per-minute counting state).
 * 3. Every blob an answer references is streamed into the PostgreSQL blob store under the same
 *    key (skipped when it is already there with the same size).
 * 4. Row counts are compared per table, and every referenced blob is checked.
 *
 * The first run refuses (before copying anything) when a table of the target has a row the
 * appliance does not — more rows, or a primary key the appliance lacks: the target was used on its
 * own (a node started on it creates a workspace). A later run (the documented second pass, after
 * stopping the appliance) deletes in the target the rows and blobs the appliance deleted since the
 * last run (an erasure, a removed webhook, pruned delivery logs or jobs), and refuses only when
 * something other than this command wrote to the target since (commands/migrate-passes.ts).
 */
import type { Command } from "commander";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Config } from "../config.ts";
import { migrateToLatest, openDatabase, type Db } from "../db/client.ts";
import { isDatabaseUrl } from "../db/engine.ts";
import { AppError } from "../errors.ts";
import { createLocalBlobStore } from "../blobs/store.ts";
import { createPostgresBlobStore, storedBlobSize, writeBlob } from "../blobs/postgres.ts";
import { deleteRowsNotInSource, lastPassXid, PASSES_TABLE, recordPass, rowsWrittenSince } from "./migrate-passes.ts";

/** Rows per read and per INSERT. */
const BATCH = 500;
/**
 * Never copied: Kysely's tables, the blob store's (step 3), the search table its trigger fills, and
 * the per-minute rate-limit windows (counting state of a running cluster; empty on an appliance),
 * and the definition counter (the target has its own, raised by the copy's own inserts).
 */
const NOT_COPIED = new Set([
  "kysely_migration",
  "kysely_migration_lock",
  "blobs",
  "blob_chunks",
  "answers_search",
  // Hidden-field search (migration 2026-12-03T0100): its trigger fills it as responses arrive.
  "responses_hidden_search",
  "rate_limit_windows",
  "definition_version",
  PASSES_TABLE,
]);
/** Tables that triggers on other tables write (derived counters): emptied and copied last, so the appliance's values win. */
const LAST = ["workspace_changes"];

/** One table's outcome. */
export type TableReport = { table: string; source: number; target: number };
/** What {@link migrateToPostgres} did. */
export type MigrationReport = {
  tables: TableReport[];
  blobs: { referenced: number; copied: number; already: number; missing: string[] };
  /** Rows (per table) and blobs (`blobs`) deleted in the target because the appliance deleted them since the last run. */
  deleted: Record<string, number>;
};

type Column = { name: string; identity: boolean };
type TargetTable = { name: string; columns: Column[]; primaryKey: string[] };

/** The target's tables with their insertable columns and primary keys. */
async function targetTables(target: Kysely<any>): Promise<Map<string, TargetTable>> {
  const cols = await sql<{ table_name: string; column_name: string; is_identity: string; is_generated: string }>`
    select table_name, column_name, is_identity, is_generated from information_schema.columns
    where table_schema = current_schema() order by table_name, ordinal_position`.execute(target);
  const pks = await sql<{ tbl: string; col: string }>`
    select c.relname as tbl, a.attname as col from pg_index i
    join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum = any(i.indkey)
    where i.indisprimary and n.nspname = current_schema()`.execute(target);
  const tables = new Map<string, TargetTable>();
  for (const c of cols.rows) {
    if (c.is_generated === "ALWAYS") continue;
    let t = tables.get(c.table_name);
    if (!t) {
      t = { name: c.table_name, columns: [], primaryKey: [] };
      tables.set(c.table_name, t);
    }
    t.columns.push({ name: c.column_name, identity: c.is_identity === "YES" });
  }
  for (const pk of pks.rows) tables.get(pk.tbl)?.primaryKey.push(pk.col);
  return tables;
}

/** `names` ordered parents first by the target's foreign keys (alphabetical among equals), {@link LAST} at the end. */
async function foreignKeyOrder(target: Kysely<any>, names: string[]): Promise<string[]> {
  const fks = await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent from pg_constraint k
    join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
    join pg_namespace n on n.oid = c.relnamespace
    where k.contype = 'f' and n.nspname = current_schema()`.execute(target);
  const wanted = new Set(names);
  const parents = new Map(names.map((n) => [n, new Set<string>()]));
  for (const { child, parent } of fks.rows) if (child !== parent && wanted.has(child) && wanted.has(parent)) parents.get(child)!.add(parent);
  const order: string[] = [];
  const rest = names.filter((n) => !LAST.includes(n)).sort();
  while (rest.length) {
    const i = rest.findIndex((n) => [...parents.get(n)!].every((p) => order.includes(p) || LAST.includes(p)));
    if (i < 0) throw new Error(`Foreign keys form a cycle among: ${rest.join(", ")}`);
    order.push(...rest.splice(i, 1));
  }
  return [...order, ...LAST.filter((n) => wanted.has(n))];
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function countRows(db: Kysely<any>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.raw(quote(table))}`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * How many of the target's rows of `table` have a primary key the appliance does not (deleted
 * there since an earlier run, or written to the target directly). Reads the target's keys in
 * batches, in key order, and looks each batch up in the appliance.
 */
async function rowsOnlyInTarget(source: Kysely<any>, target: Kysely<any>, table: TargetTable): Promise<number> {
  const cols = sql.raw(table.primaryKey.map(quote).join(", "));
  const from = sql.raw(quote(table.name));
  let after: unknown[] | null = null;
  let missing = 0;
  for (;;) {
    const where: RawBuilder<unknown> = after ? sql`where (${cols}) > (${sql.join(after)})` : sql``;
    const { rows } = await sql<Record<string, unknown>>`select ${cols} from ${from} ${where} order by ${cols} limit ${BATCH}`.execute(target);
    if (!rows.length) return missing;
    const keys: unknown[][] = rows.map((r) => table.primaryKey.map((c) => r[c]));
    after = keys[keys.length - 1]!;
    const tuples = sql.join(keys.map((k) => sql`(${sql.join(k)})`));
    const { rows: found } = await sql<{ n: number }>`select count(*) as n from ${from} where (${cols}) in (values ${tuples})`.execute(source);
    missing += keys.length - Number(found[0]!.n);
  }
}

/**
 * Before the first pass: refuses a target with a row the appliance does not have (more rows, or a
 * primary key the appliance lacks) — it was used on its own.
 * @throws AppError VALIDATION_ERROR naming the tables
 */
async function refuseRowsOfItsOwn(
  source: Kysely<any>,
  target: Kysely<any>,
  names: string[],
  inTarget: Map<string, TargetTable>,
  counts: Map<string, number>,
): Promise<void> {
  const extra: string[] = [];
  for (const name of names) {
    const [s, t] = [counts.get(name)!, await countRows(target, name)];
    if (LAST.includes(name) || t === 0) continue;
    if (t > s) extra.push(`${name} (${t} there, ${s} here)`);
    else if (inTarget.get(name)!.primaryKey.length) {
      // As many rows, or fewer, can still hide a row of the target's own.
      const only = await rowsOnlyInTarget(source, target, inTarget.get(name)!);
      if (only) extra.push(`${name} (${only} ${only === 1 ? "row" : "rows"} not in the appliance)`);
    }
  }
  if (extra.length) {
    throw new AppError(
      "VALIDATION_ERROR",
      `The target database has rows the appliance does not: ${extra.join(", ")}. Nothing was copied. Migrate into a new, empty database (and start no node on it before the migration).`,
    );
  }
}

/** Copies one table in batches (upserts by primary key). @returns rows read from the appliance */
async function copyTable(
  source: Kysely<any>,
  target: Kysely<any>,
  table: TargetTable,
  sourceColumns: Set<string>,
  progress: (done: number) => void,
): Promise<number> {
  const columns = table.columns.map((c) => c.name).filter((c) => sourceColumns.has(c));
  const pk = table.primaryKey;
  const select = columns.map(quote).join(", ");
  let after = Number.MIN_SAFE_INTEGER;
  let done = 0;
  for (;;) {
    const { rows } = await sql<
      Record<string, unknown>
    >`select _rowid_ as "__rowid", ${sql.raw(select)} from ${sql.raw(quote(table.name))} where _rowid_ > ${after} order by _rowid_ limit ${BATCH}`.execute(
      source,
    );
    if (!rows.length) return done;
    after = Number(rows[rows.length - 1]!.__rowid);
    const values = rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null])));
    let insert = target.insertInto(table.name).values(values);
    if (pk.length) {
      const others = columns.filter((c) => !pk.includes(c));
      insert = insert.onConflict((oc) => {
        const on = oc.columns(pk as never);
        return others.length ? on.doUpdateSet(Object.fromEntries(others.map((c) => [c, (eb: any) => eb.ref(`excluded.${c}`)]))) : on.doNothing();
      });
    }
    await insert.execute();
    done += rows.length;
    progress(done);
  }
}

/** Moves every identity sequence past the highest copied id. */
async function resetIdentities(target: Kysely<any>, tables: TargetTable[]): Promise<void> {
  for (const t of tables) {
    for (const c of t.columns.filter((col) => col.identity)) {
      await sql`select setval(pg_get_serial_sequence(${quote(t.name)}, ${c.name}), coalesce((select max(${sql.raw(quote(c.name))}) from ${sql.raw(quote(t.name))}), 0) + 1, false)`.execute(
        target,
      );
    }
  }
}

/** Keys of the target's blobs (complete or not) that are not in `keep`. */
async function blobsNotIn(target: Kysely<any>, keep: Set<string>): Promise<string[]> {
  const { rows } = await sql<{ key: string }>`select key from blobs order by key`.execute(target);
  return rows.map((r) => r.key).filter((k) => !keep.has(k));
}

/** Every blob key the appliance's answers reference (recordings, files, follow-up recordings). */
async function referencedBlobs(source: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ audio_blob: string | null; file_blob: string | null; follow_ups: string | null }>`
    select audio_blob, file_blob, follow_ups from answers
    where audio_blob is not null or file_blob is not null or (follow_ups is not null and follow_ups != '[]')`.execute(source);
  const keys = new Set<string>();
  for (const r of rows) {
    if (r.audio_blob) keys.add(r.audio_blob);
    if (r.file_blob) keys.add(r.file_blob);
    for (const f of JSON.parse(r.follow_ups || "[]") as { audio_blob?: string | null }[]) if (f.audio_blob) keys.add(f.audio_blob);
  }
  return [...keys].sort();
}

/**
 * Copies an appliance (its SQLite database and blob directory) into PostgreSQL and verifies it
 * (module comment). Both databases are migrated first.
 * @param log receives progress lines
 * @throws AppError VALIDATION_ERROR when the target has rows of its own — before the first run, rows
 *   the appliance lacks; after one, rows written there since by anything else (nothing copied or
 *   deleted) —, or when a table's counts differ afterwards
 */
export async function migrateToPostgres(source: Db, target: Db, blobsDir: string, log: (line: string) => void): Promise<MigrationReport> {
  await migrateToLatest(source);
  await migrateToLatest(target);
  const inTarget = await targetTables(target);
  const sourceTables = (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(source)).rows.map(
    (r) => r.name,
  );
  const names = await foreignKeyOrder(
    target,
    sourceTables.filter((n) => inTarget.has(n) && !NOT_COPIED.has(n)),
  );

  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, await countRows(source, name));
  const lastPass = await lastPassXid(target);
  const deleted: Record<string, number> = {};
  if (lastPass === null) await refuseRowsOfItsOwn(source, target, names, inTarget, counts);
  else {
    // A pass ran before: the target's rows are the appliance's as that pass left them, unless
    // something else wrote there since (then refuse, as for a target used on its own).
    const foreign: string[] = [];
    for (const name of [...names.filter((n) => !LAST.includes(n)), "blobs", "blob_chunks"]) {
      const n = await rowsWrittenSince(target, name, lastPass);
      if (n) foreign.push(`${name} (${n} ${n === 1 ? "row" : "rows"} written there since the last run)`);
    }
    if (foreign.length) {
      throw new AppError(
        "VALIDATION_ERROR",
        `The target database has rows the appliance does not: ${foreign.join(", ")}. Nothing was copied. Migrate into a new, empty database (and start no node on it before the migration).`,
      );
    }
    // Rows the appliance deleted since (erasures, removed webhooks, pruned logs and jobs) go, children first.
    for (const name of [...names].reverse()) {
      const table = inTarget.get(name)!;
      if (LAST.includes(name) || !table.primaryKey.length) continue;
      const n = await deleteRowsNotInSource(source, target, table, BATCH);
      if (n) {
        deleted[name] = n;
        log(`${name}: ${n} ${n === 1 ? "row" : "rows"} deleted (deleted on the appliance since the last run)`);
      }
    }
  }

  for (const name of names) {
    const table = inTarget.get(name)!;
    const cols = new Set((await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(source)).rows.map((r) => r.name));
    const total = counts.get(name)!;
    if (LAST.includes(name)) await sql`delete from ${sql.raw(quote(name))}`.execute(target);
    else if (!table.primaryKey.length && (await countRows(target, name)) > 0) {
      // No key to upsert by (no such table today): copied only into an empty table.
      if ((await countRows(target, name)) === total) continue;
      throw new AppError("VALIDATION_ERROR", `${name} has no primary key and already has rows in the target; migrate into a new, empty database.`);
    }
    let shown = 0;
    await copyTable(source, target, table, cols, (done) => {
      if (done - shown < 5000) return;
      shown = done;
      log(`  ${name}: ${done}/${total} rows`);
    });
    log(`${name}: ${total} rows`);
  }
  await resetIdentities(
    target,
    names.map((n) => inTarget.get(n)!),
  );

  const keys = await referencedBlobs(source);
  const local = createLocalBlobStore(blobsDir);
  const blobs = { referenced: keys.length, copied: 0, already: 0, missing: [] as string[] };
  for (const [i, key] of keys.entries()) {
    const size = await local.size(key);
    if (size === null) {
      blobs.missing.push(key);
      continue;
    }
    if ((await storedBlobSize(target, key)) === size) blobs.already++;
    else {
      await writeBlob(target, key, (await local.stream(key))!);
      blobs.copied++;
    }
    if ((i + 1) % 100 === 0) log(`  blobs: ${i + 1}/${keys.length}`);
  }
  log(`blobs: ${blobs.copied} copied, ${blobs.already} already there${blobs.missing.length ? `, ${blobs.missing.length} missing in the appliance` : ""}`);
  if (lastPass !== null) {
    // Recordings and files of answers the appliance erased or replaced since the last run.
    const gone = await blobsNotIn(target, new Set(keys));
    const store = createPostgresBlobStore(target);
    for (const key of gone) await store.delete(key);
    if (gone.length) {
      deleted.blobs = gone.length;
      log(`blobs: ${gone.length} deleted (no longer referenced on the appliance)`);
    }
  }

  const tables: TableReport[] = [];
  const differ: string[] = [];
  for (const name of names) {
    const report = { table: name, source: await countRows(source, name), target: await countRows(target, name) };
    tables.push(report);
    if (report.source !== report.target) differ.push(`${name} (${report.source} here, ${report.target} there)`);
  }
  for (const key of keys) {
    if (!blobs.missing.includes(key) && (await storedBlobSize(target, key)) !== (await local.size(key))) differ.push(`blob ${key}`);
  }
  if (differ.length)
    throw new AppError(
      "VALIDATION_ERROR",
      `Counts differ after copying: ${differ.join(", ")}. The appliance may have changed meanwhile: stop it and run again.`,
    );
  await recordPass(target);
  return { tables, blobs, deleted };
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}

/** Registers `migrate-to-postgres --to URL [--json]` on the program. */
export function registerMigrateToPostgresCommand(program: Command, config: () => Config): void {
  program
    .command("migrate-to-postgres")
    .description("copy this appliance (database rows and blobs) into PostgreSQL and verify the counts; safe to re-run")
    .requiredOption("--to <url>", "the PostgreSQL database: postgres://user:pass@host:port/db")
    .option("--json", "print the per-table counts as one JSON object")
    .action(async (o: { to: string; json?: boolean }) => {
      if (!isDatabaseUrl(o.to)) throw new AppError("VALIDATION_ERROR", "--to must be a postgres:// URL.");
      const cfg = config();
      const started = performance.now();
      const source = openDatabase(cfg.dbFile, { synchronous: cfg.sqliteSynchronous });
      const target = openDatabase(o.to);
      try {
        process.stderr.write(`Copying ${cfg.dbFile} and ${cfg.blobsDir} to ${redact(o.to)}\n`);
        const report = await migrateToPostgres(source, target, cfg.blobsDir, (line) => process.stderr.write(`${line}\n`));
        const rows = report.tables.reduce((n, t) => n + t.source, 0);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        process.stdout.write(
          o.json
            ? `${JSON.stringify(report)}\n`
            : `Copied ${rows} rows in ${report.tables.length} tables and ${report.blobs.referenced - report.blobs.missing.length} blobs in ${seconds} s; counts verified.\n`,
        );
        if (report.blobs.missing.length)
          process.stderr.write(
            `warning: ${report.blobs.missing.length} referenced blobs were missing in ${cfg.blobsDir}: ${report.blobs.missing.slice(0, 5).join(", ")}\n`,
          );
      } finally {
        await source.destroy();
        await target.destroy();
      }
    });
}
