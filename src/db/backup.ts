/**
 * @module db/backup
 * Consistent online copy of the database (`earshot backup FILE`) with SQLite's `VACUUM INTO`,
 * which reads one snapshot while the server keeps writing.
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import type { Db } from "./client.ts";
import { isPostgres } from "./dialect.ts";

/**
 * Writes a consistent copy of the database to `file`.
 * @throws Error when `file` already exists (never overwrites), or on PostgreSQL (use `pg_dump`,
 *   docs/operations.md)
 */
export async function backupDatabase(db: Db, file: string): Promise<void> {
  if (isPostgres(db)) throw new Error("earshot backup copies the SQLite file; on PostgreSQL use pg_dump (docs/operations.md).");
  const target = path.resolve(file);
  if (fs.existsSync(target)) throw new Error(`${target} already exists; choose a new file name.`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  await sql`VACUUM INTO ${target}`.execute(db);
}
