/**
 * Shared sign-in throttling (DESIGN §10, §11): with several nodes on one PostgreSQL database, the
 * failures counted against an account or a client address (src/auth/login-throttle.ts) are rows
 * here — one per counted attempt and key, `at_ms` its start in ms since the epoch — so "5 failures
 * per account, 20 per address in 15 minutes" holds across all nodes together. The single SQLite
 * process keeps counting in memory; the table exists there too (one schema) and stays empty.
 * Frozen: never edit, add a new migration.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("login_failures")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("at_ms", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("login_failures_key").on("login_failures").columns(["key", "at_ms"]).execute();
  await db.schema.createIndex("login_failures_at").on("login_failures").column("at_ms").execute();
}
