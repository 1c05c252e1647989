/**
 * @module commands/migrate-passes
 * What lets `migrate-to-postgres` run again after the appliance deleted rows (issue 22): each pass
 * that finishes records, in the target, the PostgreSQL transaction id it ended with
 * (`earshot_migration_passes`, a table of this command's own, never copied or read by a node). The
 * next pass then knows which target rows only a pass wrote: any row whose `xmin` (the transaction
 * that inserted or last updated it) is newer than that id was written by something else — a node
 * started on the target too early — and the pass refuses, as before. When there is none, a target
 * row the appliance no longer has was deleted there since (an erasure, a removed webhook, pruned
 * delivery logs or jobs) and is deleted in the target too, children first.
 *
 * `xmin` is PostgreSQL's 32-bit transaction id; `age()` compares it across wraparound, which holds
 * for two billion transactions between passes.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";

/** The command's own record of finished passes in the target. */
export const PASSES_TABLE = "earshot_migration_passes";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The transaction id the last finished pass ended with (64-bit, as text), or null before the first.
 * Creates the record table when missing.
 */
export async function lastPassXid(target: Kysely<any>): Promise<string | null> {
  await sql`create table if not exists ${sql.raw(PASSES_TABLE)} (finished_at timestamptz not null default now(), xid bigint not null)`.execute(target);
  const { rows } = await sql<{ xid: string }>`select xid::text as xid from ${sql.raw(PASSES_TABLE)} order by xid desc limit 1`.execute(target);
  return rows[0]?.xid ?? null;
}

/** Records that a pass finished now, with the id of the transaction that records it (newer than all the pass wrote). */
export async function recordPass(target: Kysely<any>): Promise<void> {
  await sql`insert into ${sql.raw(PASSES_TABLE)} (xid) values (txid_current())`.execute(target);
}

/**
 * Rows of `table` in the target inserted or updated after the pass that ended with `xid`: written
 * by something other than this command.
 */
export async function rowsWrittenSince(target: Kysely<any>, table: string, xid: string): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`
    select count(*) as n from ${sql.raw(quote(table))}
    where age(xmin) < age((${xid}::bigint % 4294967296)::text::xid)`.execute(target);
  return Number(rows[0]!.n);
}

/**
 * Deletes the target's rows of `table` whose primary key the appliance does not have, reading the
 * target's keys in batches in key order.
 * @returns how many were deleted
 */
export async function deleteRowsNotInSource(
  source: Kysely<any>,
  target: Kysely<any>,
  table: { name: string; primaryKey: string[] },
  batch: number,
): Promise<number> {
  const cols = sql.raw(table.primaryKey.map(quote).join(", "));
  const from = sql.raw(quote(table.name));
  let after: unknown[] | null = null;
  let deleted = 0;
  for (;;) {
    const where: RawBuilder<unknown> = after ? sql`where (${cols}) > (${sql.join(after)})` : sql``;
    const { rows } = await sql<Record<string, unknown>>`select ctid::text as "__ctid", ${cols} from ${from} ${where} order by ${cols} limit ${batch}`.execute(
      target,
    );
    if (!rows.length) return deleted;
    const keys: unknown[][] = rows.map((r) => table.primaryKey.map((c) => r[c]));
    after = keys[keys.length - 1]!;
    const tuples = sql.join(keys.map((k) => sql`(${sql.join(k)})`));
    const { rows: found } = await sql<Record<string, unknown>>`select ${cols} from ${from} where (${cols}) in (values ${tuples})`.execute(source);
    const here = new Set(found.map((r) => JSON.stringify(table.primaryKey.map((c) => String(r[c])))));
    // By the row's physical address: no parameter has to be typed like the key's columns.
    const gone = rows.filter((r, i) => !here.has(JSON.stringify(keys[i]!.map(String)))).map((r) => String(r.__ctid));
    if (!gone.length) continue;
    await sql`delete from ${from} where ctid = any(${gone}::tid[])`.execute(target);
    deleted += gone.length;
  }
}
