/**
 * @module health/repository
 * The job queue's counts for `GET /healthz`.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

/** Job counts as `/healthz` reports them. */
export type JobCounts = { pending: number; running: number; waiting_for_model: number; failed: number };

/**
 * Jobs due (`queued`), running, parked until the ASR model is installed (`waiting`), and failed for
 * good — the work of answers and messages; the hourly housekeeping runs (`periodic`,
 * src/periodic.ts) are the box's own upkeep, not a backlog an operator acts on.
 */
export async function jobCounts(db: Kysely<Database>): Promise<JobCounts> {
  const rows = await db
    .selectFrom("jobs")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .where("state", "in", ["queued", "running", "waiting", "failed"])
    .where("kind", "!=", "periodic")
    .groupBy("state")
    .execute();
  const n = (state: string) => Number(rows.find((r) => r.state === state)?.n ?? 0);
  return { pending: n("queued"), running: n("running"), waiting_for_model: n("waiting"), failed: n("failed") };
}
