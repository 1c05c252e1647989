/**
 * @module db/backup
 * The database's part of `earshot backup` and `earshot restore` (DESIGN §14; the archive itself:
 * src/commands/backup-archive.ts): a consistent snapshot of the SQLite database with `VACUUM INTO`
 * (one read transaction, while the server keeps writing), and what the archive needs to know of a
 * snapshot — the blob keys its answers reference, row counts, and whether the file is sound.
 */
import fs from "node:fs";
import path from "node:path";
import { Database as SqliteDatabase } from "bun:sqlite";
import { sql } from "kysely";
import type { Db } from "./client.ts";
import { isPostgres } from "./dialect.ts";

/** Why `earshot backup` refuses on PostgreSQL, and what to do instead. */
export const POSTGRES_BACKUP_ADVICE =
  "On PostgreSQL the recordings and files are in the database: back it up with pg_dump and restore with pg_restore " +
  '(docs/operations.md, "Backup and restore"). earshot backup archives an appliance\'s SQLite data directory.';

/** Tables whose row counts the manifest records (and a restore checks). */
export const COUNTED_TABLES = ["workspaces", "links", "responses", "answers", "users"] as const;
export type SnapshotCounts = Record<(typeof COUNTED_TABLES)[number], number>;

/**
 * Writes a consistent copy of the live database to `file` (a new file).
 * @throws Error on PostgreSQL ({@link POSTGRES_BACKUP_ADVICE}), or when `file` exists
 */
export async function snapshotDatabase(db: Db, file: string): Promise<void> {
  if (isPostgres(db)) throw new Error(POSTGRES_BACKUP_ADVICE);
  const target = path.resolve(file);
  if (fs.existsSync(target)) throw new Error(`${target} already exists.`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  await sql`VACUUM INTO ${target}`.execute(db);
}

/** Opens a snapshot read-only (never creating or changing it); close it after use. */
function openSnapshot(file: string): SqliteDatabase {
  return new SqliteDatabase(file, { readonly: true, strict: false });
}

/** Keys an answer row references: its recording, its file and its follow-ups' recordings. */
function keysOfRow(row: { audio_blob: string | null; file_blob: string | null; follow_ups: string }): string[] {
  const followUps = JSON.parse(row.follow_ups) as { audio_blob?: string | null }[];
  return [row.audio_blob, row.file_blob, ...followUps.map((f) => f.audio_blob ?? null)].filter((k): k is string => typeof k === "string");
}

/**
 * Every blob key the snapshot's answers reference, sorted and without duplicates.
 * @param file a snapshot written by {@link snapshotDatabase} (or restored from an archive)
 */
export function snapshotBlobKeys(file: string): string[] {
  const snapshot = openSnapshot(file);
  try {
    const keys = new Set<string>();
    const rows = snapshot
      .query("select audio_blob, file_blob, follow_ups from answers where audio_blob is not null or file_blob is not null or follow_ups != '[]'")
      .all() as { audio_blob: string | null; file_blob: string | null; follow_ups: string }[];
    for (const row of rows) for (const key of keysOfRow(row)) keys.add(key);
    return [...keys].sort();
  } finally {
    snapshot.close();
  }
}

/** Row counts of {@link COUNTED_TABLES} in a snapshot. */
export function snapshotCounts(file: string): SnapshotCounts {
  const snapshot = openSnapshot(file);
  try {
    const count = (table: string) => (snapshot.query(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return Object.fromEntries(COUNTED_TABLES.map((t) => [t, count(t)])) as SnapshotCounts;
  } finally {
    snapshot.close();
  }
}

/** The newest migration applied to a snapshot (null for a database Earshot never migrated). */
export function snapshotMigration(file: string): string | null {
  const snapshot = openSnapshot(file);
  try {
    const row = snapshot.query("select name from kysely_migration order by name desc limit 1").get() as { name: string } | null;
    return row?.name ?? null;
  } catch {
    return null;
  } finally {
    snapshot.close();
  }
}

/**
 * SQLite's own check of a snapshot file (`PRAGMA integrity_check`).
 * @returns null when sound, else SQLite's first complaints
 */
export function checkSnapshotIntegrity(file: string): string | null {
  let snapshot: SqliteDatabase;
  try {
    snapshot = openSnapshot(file);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  try {
    const rows = snapshot.query("PRAGMA integrity_check(5)").all() as { integrity_check: string }[];
    const problems = rows.map((r) => r.integrity_check).filter((r) => r !== "ok");
    return problems.length ? problems.join("; ") : null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    snapshot.close();
  }
}

/** True when some answer of the live database references `key` now. */
export async function isBlobReferenced(db: Db, key: string): Promise<boolean> {
  const row = await db
    .selectFrom("answers")
    .select("uuid")
    .where((eb) => eb.or([eb("audio_blob", "=", key), eb("file_blob", "=", key), eb("follow_ups", "like", `%${key}%`)]))
    .executeTakeFirst();
  return row !== undefined;
}
