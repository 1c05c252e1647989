/**
 * Shared rate-limit windows (DESIGN §11, issue 15): with several `earshot serve` nodes on one
 * PostgreSQL database, a key's per-minute limit is counted in one row per key — the start of its
 * current one-minute window (ms since the epoch) and the requests counted in it — upserted
 * atomically by every node (src/auth/rate-limit.ts). The single SQLite process keeps counting in
 * memory; the table exists there too (one schema) and stays empty. Frozen: never edit, add a new
 * migration.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("rate_limit_windows")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("window_start_ms", "bigint", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("rate_limit_windows_start").on("rate_limit_windows").column("window_start_ms").execute();
}
