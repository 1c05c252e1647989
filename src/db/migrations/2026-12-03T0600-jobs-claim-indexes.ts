/**
 * The job queue's claim and give-up reads without a scan of the queue (issue 24, whole-server CPU
 * per analysed answer; docs/decisions/job-claim-indexes.md). With ~15,000 queued analysis jobs the
 * claim (`(queued AND due) OR (running AND lease expired)`, ordered by priority DESC, run_at, id)
 * scanned the table and sorted every due row, and the give-up check (`attempts >= max_attempts`)
 * scanned it too: ~5 ms per job on SQLite, growing with the queue.
 *
 * - `jobs_claim (state, priority DESC, run_at, id)`: each half of the claim (queued and due;
 *   running with an expired lease) walks this index in the claim's order and stops at its first
 *   row. It has `jobs_due`'s leading columns, so it serves every read `jobs_due` served (state
 *   equality, then priority / run_at), and `jobs_due` is dropped (one index less to keep per job
 *   write).
 * - `jobs_exhausted (state, id) WHERE attempts >= max_attempts`: the rows the runner checks before
 *   every claim; only jobs that used all their attempts are in it.
 *
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";
import { sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("jobs_claim").on("jobs").columns(["state", "priority desc", "run_at", "id"]).execute();
  await db.schema.createIndex("jobs_exhausted").on("jobs").columns(["state", "id"]).where(sql.ref("attempts"), ">=", sql.ref("max_attempts")).execute();
  await db.schema.dropIndex("jobs_due").execute();
}
