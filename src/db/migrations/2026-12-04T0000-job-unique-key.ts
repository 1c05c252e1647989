/**
 * Periodic work as jobs (issue 23 step 4; src/jobs/scheduler.ts): a job may carry a
 * `unique_key`, unique across the table, so the scheduler of every node can insert "this task,
 * this period" and only the first insert makes a row — one run per period per cluster. NULL (every
 * other job) is never a duplicate, on both engines. Frozen: never edit, add a new migration.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("unique_key", "text").execute();
  await db.schema.createIndex("jobs_unique_key").on("jobs").column("unique_key").unique().execute();
}
