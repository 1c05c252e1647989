/**
 * @module jobs/queue
 * The durable job table (DESIGN §1) on the shared queue skeleton (src/queue/durable-queue.ts):
 * jobs are written in the same transaction as the change that causes them, claimed with a lease
 * (the lease token guards completion and failure), retried with exponential backoff, and
 * recovered after a crash (an expired lease makes a running job claimable again). Every claim
 * counts an attempt, so a job that keeps crashing the process is given up after `max_attempts`
 * like any other. Finished jobs are pruned ({@link pruneJobs}).
 */
import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import { systemClock, type Clock } from "../clock.ts";
import type { Database, JobTable, Executor } from "../db/schema.ts";
import { prepared } from "../db/prepared.ts";
import { engineOf } from "../db/engine.ts";
import { claimTransaction, exponentialBackoff, releaseLeases, renewLease, type QueueTable } from "../queue/durable-queue.ts";

export type JobKind = JobTable["kind"];
export type Job = {
  id: number;
  kind: JobKind;
  payload: Record<string, unknown>;
  attempts: number;
  maxAttempts: number;
  /** The lease token (`lease_until` as claimed or last renewed); null on a job that was never claimed. */
  leaseUntil?: string | null;
};

/**
 * Thrown by a handler's final write when its claim is no longer the job's current run (its lease
 * expired and another claimer took the job): the write is rolled back and the runner records
 * nothing, so a job never completes twice.
 */
export class LeaseLostError extends Error {
  constructor(job: Pick<Job, "id" | "attempts">) {
    super(`Job ${job.id} was claimed again after attempt ${job.attempts}'s lease expired.`);
    this.name = "LeaseLostError";
  }
}

/**
 * Whether `job` is still this claimer's run: its row is `running` with the attempt count of our
 * claim (every claim counts one more attempt; lease renewals do not). Call it inside the
 * transaction that writes the job's result, so the check and the write commit together. A job
 * with no row (run outside the queue) counts as ours.
 * @returns false when the job was finished, failed or claimed again meanwhile
 */
export async function isClaimStillOurs(db: Executor, job: Pick<Job, "id" | "attempts">): Promise<boolean> {
  const [row] = await claimStateOf(db, job.id);
  return !row || (row.state === "running" && Number(row.attempts) === job.attempts);
}

// Compiled once (db/prepared.ts): every job's final write checks its claim with it.
const claimStateOf = prepared(1, (db, id: number) => db.selectFrom("jobs").select(["state", "attempts"]).where("id", "=", id));

export const JOBS_QUEUE: QueueTable = { table: "jobs", key: "id", waiting: "queued", leased: "running", dueAt: "run_at" };

/**
 * How long a claimed job stays ours before another claimer may take it. The runner renews the
 * lease every third of it while the handler runs, so only a dead or stalled node loses a job, and
 * another node (or the restarted one) takes it up at most this long after.
 */
export const JOB_LEASE_S = 30;
/** Retry after 5 s · 4^(attempt−1), at most 1 h (5 s, 20 s, 80 s, 320 s). */
export const JOB_BACKOFF = exponentialBackoff({ baseS: 5, factor: 4, maxS: 3600, maxAttempts: Number.POSITIVE_INFINITY });
/**
 * Retention of finished jobs (docs/architecture.md, "A job"): `done` jobs are deleted 1 day after
 * they finished, `failed` ones after 30 days (their answers keep the failure; the job row keeps the
 * last error for operators).
 */
export const JOB_RETENTION_DAYS = { done: 1, failed: 30 } as const;

/**
 * Analysis goes before transcription: it takes about a millisecond with the embedded engine,
 * while one transcription can take seconds, and a response's `response.submitted` waits for its
 * analyses. So one workspace's backlog of recordings cannot hold another's typed answers (and
 * their webhook events) for minutes (issue 9 soak: p99 submit → event was 30 s behind 65 queued
 * transcriptions). A periodic run (housekeeping, src/jobs/scheduler.ts) goes first: it is due on
 * the hour and bounded, and a backlog of recordings must not hold retention back. So does a mail
 * (an invite, a password reset): someone waits for it and it takes one SMTP exchange.
 */
const DEFAULT_PRIORITY: Record<JobKind, number> = { analyse: 1, transcribe: 0, themes: 0, periodic: 2, mail: 2 };

/**
 * Queues a job; call with the transaction of the change that causes it.
 * @param priority higher runs first (batch work is 0)
 */
export async function enqueueJob(
  db: Executor,
  kind: JobKind,
  payload: Record<string, unknown>,
  priority = DEFAULT_PRIORITY[kind],
  clock: Clock = systemClock,
): Promise<void> {
  const now = clock.nowIso();
  await insertJob(db, kind, JSON.stringify(payload), "queued", priority, now, now, now);
}

/**
 * Queues a job under a key unique across the jobs table (a periodic run, src/jobs/scheduler.ts):
 * when a job with `uniqueKey` exists already — queued, running, done or failed, from this node or
 * another — nothing is inserted. Safe on several nodes at once (the unique index decides).
 * @param runAt when it is due (ISO-8601 UTC)
 * @returns true when this call inserted the job
 */
export async function enqueueUniqueJob(
  db: Executor,
  kind: JobKind,
  payload: Record<string, unknown>,
  uniqueKey: string,
  runAt: string,
  clock: Clock = systemClock,
): Promise<boolean> {
  const now = clock.nowIso();
  const r = await db
    .insertInto("jobs")
    .values({
      kind,
      payload: JSON.stringify(payload),
      state: "queued",
      priority: DEFAULT_PRIORITY[kind],
      run_at: runAt,
      unique_key: uniqueKey,
      date_created: now,
      date_updated: now,
    })
    .onConflict((oc) => oc.column("unique_key").doNothing())
    .returning("id")
    .executeTakeFirst();
  return r !== undefined;
}

// Compiled once: every intake submission queues its analyses with it (db/prepared.ts; bench/intake.ts).
const insertJob = prepared(
  7,
  (db, kind: JobKind, payload: string, state: "queued", priority: number, runAt: string, dateCreated: string, dateUpdated: string) =>
    db.insertInto("jobs").values({ kind, payload, state, priority, run_at: runAt, date_created: dateCreated, date_updated: dateUpdated }),
);

type JobRow = { id: number; kind: JobKind; payload: string; attempts: number; max_attempts: number; lease_until: string | null };
const toJob = (row: JobRow): Job => ({
  id: Number(row.id),
  kind: row.kind,
  payload: JSON.parse(row.payload),
  attempts: Number(row.attempts),
  maxAttempts: Number(row.max_attempts),
  leaseUntil: row.lease_until,
});

/**
 * Claims the most urgent due job (queued and due, or running with an expired lease) that has
 * attempts left, taking a lease of `leaseS` seconds and counting the attempt. A job whose runs
 * were all used up by interruptions is never claimed: see {@link exhaustedJobs}. Each of the two
 * kinds of due job is found by walking the `jobs_claim` index in the claim's order (priority
 * DESC, run_at, id) to its first row, and the better of the two is taken — no scan or sort of the
 * queue, however deep (docs/decisions/job-claim-indexes.md). On PostgreSQL both are chosen with
 * `FOR UPDATE SKIP LOCKED` in a READ COMMITTED transaction, so nodes claiming at once take
 * different jobs; on SQLite one `UPDATE … WHERE id = (SELECT …)`.
 * @returns the job with `attempts` including this one, or null when nothing is due
 */
export async function claimJob(db: Kysely<Database>, leaseS = JOB_LEASE_S, clock: Clock = systemClock): Promise<Job | null> {
  const now = clock.nowIso();
  const leaseUntil = clock.isoAfter(leaseS);
  if (!engineOf(db).rowLocks) {
    const [row] = await claimOnSqlite(db, leaseUntil, now, now, now);
    return row ? toJob(row) : null;
  }
  const row = await claimTransaction(db).execute(async (trx) => {
    // The rare one first (a dead node's job), then the queue's head; the one not taken stays
    // locked only until this short transaction commits.
    const expired = (await firstDue(trx, "running", now).forUpdate().skipLocked().executeTakeFirst()) ?? null;
    const queued = (await firstDue(trx, "queued", now).forUpdate().skipLocked().executeTakeFirst()) ?? null;
    const best = [expired, queued].filter((r) => r !== null).sort(claimOrder)[0];
    return best ? leaseJob(trx, leaseUntil, now, Number(best.id)).executeTakeFirst() : undefined;
  });
  return row ? toJob(row) : null;
}

type Due = { id: number; priority: number; run_at: string };
/** The claim's order: priority DESC, run_at, id. */
const claimOrder = (a: Due, b: Due) =>
  Number(b.priority) - Number(a.priority) || (a.run_at < b.run_at ? -1 : a.run_at > b.run_at ? 1 : 0) || Number(a.id) - Number(b.id);

/**
 * The most urgent due job in one state with attempts left: `queued` and due by `now`, or `running`
 * with a lease expired by `now`. A walk of `jobs_claim` stopping at its first matching row.
 */
function firstDue(q: Executor, state: "queued" | "running", now: string) {
  return q
    .selectFrom("jobs")
    .select(["id", "priority", "run_at"])
    .where("state", "=", sql.lit(state))
    .where(state === "queued" ? "run_at" : "lease_until", state === "queued" ? "<=" : "<", now)
    .whereRef("attempts", "<", "max_attempts")
    .orderBy("priority", "desc")
    .orderBy("run_at")
    .orderBy("id")
    .limit(sql.lit(1));
}

/** Takes the lease on job `id` (a number, or the subquery choosing it) and counts the attempt. */
function leaseJob(q: Executor, leaseUntil: string, now: string, id: number | SelectQueryBuilder<any, any, { id: number }>) {
  // Constants as literals: the compiled-once statement binds only its four parameters.
  return q
    .updateTable("jobs")
    .set({ state: sql.lit("running"), lease_until: leaseUntil, attempts: sql<number>`attempts + 1`, date_updated: now })
    .where("id", "=", id)
    .returning(["id", "kind", "payload", "attempts", "max_attempts", "lease_until"]);
}

// SQLite: one statement, compiled once (db/prepared.ts); the better of the two halves' heads.
const claimOnSqlite = prepared(4, (db, leaseUntil: string, now: string, queuedBy: string, expiredBy: string) => {
  const heads = db
    .selectFrom(firstDue(db, "queued", queuedBy).as("queued_head"))
    .selectAll()
    .unionAll(db.selectFrom(firstDue(db, "running", expiredBy).as("expired_head")).selectAll());
  const best = db.selectFrom(heads.as("heads")).select("id").orderBy("priority", "desc").orderBy("run_at").orderBy("id").limit(sql.lit(1));
  return leaseJob(db, leaseUntil, now, best);
});

/**
 * Due jobs with no attempt left: every attempt was claimed and the last one never finished (the
 * process died while running it, e.g. on a poison recording). The runner gives each up — its
 * `onGiveUp`, then {@link failJob} — so they end `failed` instead of crash-looping.
 * @returns at most `limit` jobs; `attempts` equals `maxAttempts`
 */
export async function exhaustedJobs(db: Executor, limit = 10, clock: Clock = systemClock): Promise<Job[]> {
  return (await exhaustedQuery(db, clock.nowIso(), limit)).map(toJob);
}

// Run before every claim, so compiled once (db/prepared.ts); the states are literals.
const exhaustedQuery = prepared(2, (db, now: string, limit: number) =>
  db
    .selectFrom("jobs")
    .select(["id", "kind", "payload", "attempts", "max_attempts", "lease_until"])
    // Shaped for the partial index `jobs_exhausted` (only rows with no attempt left): the same
    // rows as `queued OR (running AND lease expired)`, but an OR of states would make SQLite walk
    // `jobs_claim` through every queued job instead (docs/decisions/job-claim-indexes.md).
    .where("state", "in", [sql.lit<"queued">("queued"), sql.lit<"running">("running")])
    .where((eb) => eb.or([eb("state", "=", sql.lit("queued")), eb("lease_until", "<", now)]))
    .whereRef("attempts", ">=", "max_attempts")
    // The index's order: PostgreSQL would otherwise walk the primary key for `ORDER BY id`
    // (it cannot estimate `attempts >= max_attempts`), filtering every job.
    .orderBy("state")
    .orderBy("id")
    .limit(limit),
);

/** Restricts an update to a job we still lease (when the job carries a lease token). */
function stillOurs<T extends { where: (...a: any[]) => T }>(q: T, job: Pick<Job, "id" | "leaseUntil">): T {
  const byId = q.where("id", "=", job.id);
  return job.leaseUntil ? byId.where("lease_until", "=", job.leaseUntil) : byId;
}

/**
 * Marks a job done, if we still hold its lease.
 * @returns false when the lease was lost (another claimer has the job now; nothing is changed)
 */
export async function completeJob(db: Executor, job: Pick<Job, "id" | "leaseUntil">, clock: Clock = systemClock): Promise<boolean> {
  if (job.leaseUntil) return (await completeLeased(db, clock.nowIso(), job.id, job.leaseUntil)).length > 0;
  const r = await stillOurs(
    db.updateTable("jobs").set({ state: "done", lease_until: null, last_error: null, date_updated: clock.nowIso() }),
    job,
  ).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

// Every job ends here: compiled once (db/prepared.ts); RETURNING tells whether the lease held.
const completeLeased = prepared(3, (db, now: string, id: number, leaseUntil: string) =>
  db
    .updateTable("jobs")
    .set({ state: sql.lit("done"), lease_until: sql.lit(null), last_error: sql.lit(null), date_updated: now })
    .where("id", "=", id)
    .where("lease_until", "=", leaseUntil)
    .returning("id"),
);

/**
 * Records a failure: schedules a retry after {@link JOB_BACKOFF}, or marks the job failed when it
 * is permanent or out of attempts. Does nothing when the lease was lost.
 * @returns true when the job will not run again (false too when the lease was lost: its new claimer decides)
 */
export async function failJob(db: Executor, job: Job, error: string, permanent: boolean, clock: Clock = systemClock): Promise<boolean> {
  const final = permanent || job.attempts >= job.maxAttempts;
  const delayS = JOB_BACKOFF(job.attempts) ?? 0;
  const r = await stillOurs(
    db.updateTable("jobs").set({
      state: final ? "failed" : "queued",
      run_at: final ? clock.nowIso() : clock.isoAfter(delayS),
      lease_until: null,
      last_error: error.slice(0, 2000),
      date_updated: clock.nowIso(),
    }),
    job,
  ).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0 && final;
}

/**
 * Parks a job that cannot run until something outside the queue is fixed (the ASR model is not
 * installed): state `waiting`, the claimed attempt given back, `reason` kept in `last_error`.
 * {@link resumeWaitingJobs} queues it again.
 */
export async function parkJob(db: Executor, job: Job, reason: string, clock: Clock = systemClock): Promise<void> {
  await stillOurs(
    db.updateTable("jobs").set((eb) => ({
      state: "waiting",
      attempts: eb("attempts", "-", 1),
      lease_until: null,
      last_error: reason.slice(0, 2000),
      date_updated: clock.nowIso(),
    })),
    job,
  ).execute();
}

/**
 * Extends the lease of a job we are running (the runner's heartbeat).
 * @returns the job with its new lease token, or null when the lease was lost
 */
export async function renewJobLease(db: Executor, job: Job, leaseS = JOB_LEASE_S, clock: Clock = systemClock): Promise<Job | null> {
  if (!job.leaseUntil) return null;
  const next = await renewLease(db, JOBS_QUEUE, job.id, job.leaseUntil, leaseS, clock);
  return next ? { ...job, leaseUntil: next } : null;
}

/** How many jobs of `kind` are parked as `waiting`. */
export async function countWaitingJobs(db: Executor, kind: JobKind): Promise<number> {
  const r = await db
    .selectFrom("jobs")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("state", "=", "waiting")
    .where("kind", "=", kind)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Queues every `waiting` job of `kind` again, due now.
 * @returns how many were resumed
 */
export async function resumeWaitingJobs(db: Executor, kind: JobKind, clock: Clock = systemClock): Promise<number> {
  const now = clock.nowIso();
  const r = await db
    .updateTable("jobs")
    .set({ state: "queued", run_at: now, date_updated: now })
    .where("state", "=", "waiting")
    .where("kind", "=", kind)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Makes jobs left `running` by a previous process claimable at once. Only for the single SQLite
 * process at start-up (nothing else can hold their leases); on PostgreSQL other nodes may, and
 * expiry frees the leases of a dead node. Their attempt stays counted; those that have none left
 * are then found by {@link exhaustedJobs}.
 * @returns how many jobs were recovered
 */
export async function recoverRunningJobs(db: Executor, clock: Clock = systemClock): Promise<number> {
  return releaseLeases(db, JOBS_QUEUE, false, clock);
}

/**
 * Deletes finished jobs older than their retention ({@link JOB_RETENTION_DAYS}, by the time they finished).
 * @returns how many jobs were deleted
 */
export async function pruneJobs(db: Executor, retention: { done: number; failed: number } = JOB_RETENTION_DAYS, clock: Clock = systemClock): Promise<number> {
  let n = 0;
  for (const state of ["done", "failed"] as const) {
    const r = await db
      .deleteFrom("jobs")
      .where("state", "=", state)
      .where("date_updated", "<", clock.isoAfter(-retention[state] * 86_400))
      .executeTakeFirst();
    n += Number(r.numDeletedRows);
  }
  return n;
}

/** Counts jobs by state (for health and tests). */
export async function jobCounts(db: Executor): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom("jobs")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("state")
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}
