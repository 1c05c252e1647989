/**
 * @module jobs/queue
 * The durable job table (DESIGN §1): jobs are written in the same transaction as the change
 * that causes them, claimed with a lease, retried with exponential backoff, and recovered after
 * a crash (an expired lease makes a running job claimable again). Every claim counts an attempt,
 * so a job that keeps crashing the process is given up after `max_attempts` like any other.
 */
import type { Kysely, Transaction } from "kysely";
import { isoAfter, nowIso } from "../clock.ts";
import type { Database, JobTable } from "../db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;
export type JobKind = JobTable["kind"];
export type Job = { id: number; kind: JobKind; payload: Record<string, unknown>; attempts: number; maxAttempts: number };

/** How long a claimed job stays ours before another claimer may take it. */
export const JOB_LEASE_S = 15 * 60;
const BACKOFF_BASE_S = 5;
const BACKOFF_MAX_S = 3600;

/**
 * Analysis goes before transcription: it takes about a millisecond with the embedded engine,
 * while one transcription can take seconds, and a response's `response.submitted` waits for its
 * analyses. So one workspace's backlog of recordings cannot hold another's typed answers (and
 * their webhook events) for minutes (issue 9 soak: p99 submit → event was 30 s behind 65 queued
 * transcriptions).
 */
const DEFAULT_PRIORITY: Record<JobKind, number> = { analyse: 1, transcribe: 0 };

/**
 * Queues a job; call with the transaction of the change that causes it.
 * @param priority higher runs first (batch work is 0)
 */
export async function enqueueJob(db: Q, kind: JobKind, payload: Record<string, unknown>, priority = DEFAULT_PRIORITY[kind]): Promise<void> {
  const now = nowIso();
  await db
    .insertInto("jobs")
    .values({ kind, payload: JSON.stringify(payload), state: "queued", priority, run_at: now, date_created: now, date_updated: now })
    .execute();
}

type JobRow = { id: number; kind: JobKind; payload: string; attempts: number; max_attempts: number };
const toJob = (row: JobRow): Job => ({ id: row.id, kind: row.kind, payload: JSON.parse(row.payload), attempts: row.attempts, maxAttempts: row.max_attempts });

/**
 * Claims the most urgent due job (queued and due, or running with an expired lease) that has
 * attempts left, taking a lease of `leaseS` seconds and counting the attempt. A job whose runs
 * were all used up by interruptions is never claimed: see {@link exhaustedJobs}.
 * @returns the job with `attempts` including this one, or null when nothing is due
 */
export async function claimJob(db: Kysely<Database>, leaseS = JOB_LEASE_S): Promise<Job | null> {
  const now = nowIso();
  const row = await db
    .updateTable("jobs")
    .set((eb) => ({ state: "running", lease_until: isoAfter(leaseS), attempts: eb("attempts", "+", 1), date_updated: now }))
    .where(
      "id",
      "=",
      db
        .selectFrom("jobs")
        .select("id")
        .where((eb) =>
          eb.or([
            eb.and([eb("state", "=", "queued"), eb("run_at", "<=", now)]),
            eb.and([eb("state", "=", "running"), eb("lease_until", "<", now)]),
          ]),
        )
        .whereRef("attempts", "<", "max_attempts")
        .orderBy("priority", "desc")
        .orderBy("run_at")
        .orderBy("id")
        .limit(1),
    )
    .returningAll()
    .executeTakeFirst();
  return row ? toJob(row) : null;
}

/**
 * Due jobs with no attempt left: every attempt was claimed and the last one never finished (the
 * process died while running it, e.g. on a poison recording). The runner gives each up — its
 * `onGiveUp`, then {@link failJob} — so they end `failed` instead of crash-looping.
 * @returns at most `limit` jobs; `attempts` equals `maxAttempts`
 */
export async function exhaustedJobs(db: Q, limit = 10): Promise<Job[]> {
  const now = nowIso();
  const rows = await db
    .selectFrom("jobs")
    .select(["id", "kind", "payload", "attempts", "max_attempts"])
    .where((eb) =>
      eb.or([
        eb("state", "=", "queued"),
        eb.and([eb("state", "=", "running"), eb("lease_until", "<", now)]),
      ]),
    )
    .whereRef("attempts", ">=", "max_attempts")
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map(toJob);
}

/** Marks a job done. */
export async function completeJob(db: Q, id: number): Promise<void> {
  await db.updateTable("jobs").set({ state: "done", lease_until: null, last_error: null, date_updated: nowIso() }).where("id", "=", id).execute();
}

/**
 * Records a failure: schedules a retry after 5 s · 4^(attempt−1) (at most 1 h), or marks the job
 * failed when it is permanent or out of attempts.
 * @returns true when the job will not run again
 */
export async function failJob(db: Q, job: Job, error: string, permanent: boolean): Promise<boolean> {
  const final = permanent || job.attempts >= job.maxAttempts;
  const delayS = Math.min(BACKOFF_MAX_S, BACKOFF_BASE_S * 4 ** (job.attempts - 1));
  await db
    .updateTable("jobs")
    .set({
      state: final ? "failed" : "queued",
      run_at: final ? nowIso() : isoAfter(delayS),
      lease_until: null,
      last_error: error.slice(0, 2000),
      date_updated: nowIso(),
    })
    .where("id", "=", job.id)
    .execute();
  return final;
}

/**
 * Parks a job that cannot run until something outside the queue is fixed (the ASR model is not
 * installed): state `waiting`, the claimed attempt given back, `reason` kept in `last_error`.
 * {@link resumeWaitingJobs} queues it again.
 */
export async function parkJob(db: Q, job: Job, reason: string): Promise<void> {
  await db
    .updateTable("jobs")
    .set((eb) => ({ state: "waiting", attempts: eb("attempts", "-", 1), lease_until: null, last_error: reason.slice(0, 2000), date_updated: nowIso() }))
    .where("id", "=", job.id)
    .execute();
}

/** How many jobs of `kind` are parked as `waiting`. */
export async function countWaitingJobs(db: Q, kind: JobKind): Promise<number> {
  const r = await db.selectFrom("jobs").select((eb) => eb.fn.countAll<number>().as("n")).where("state", "=", "waiting").where("kind", "=", kind).executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Queues every `waiting` job of `kind` again, due now.
 * @returns how many were resumed
 */
export async function resumeWaitingJobs(db: Q, kind: JobKind): Promise<number> {
  const now = nowIso();
  const r = await db.updateTable("jobs").set({ state: "queued", run_at: now, date_updated: now }).where("state", "=", "waiting").where("kind", "=", kind).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Makes jobs left `running` by a previous process claimable at once (called at start-up: one
 * process owns the queue, so nothing else can hold their leases). Their attempt stays counted;
 * those that have none left are then found by {@link exhaustedJobs}.
 * @returns how many jobs were recovered
 */
export async function recoverRunningJobs(db: Q): Promise<number> {
  const r = await db.updateTable("jobs").set({ state: "queued", lease_until: null, date_updated: nowIso() }).where("state", "=", "running").executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Counts jobs by state (for health and tests). */
export async function jobCounts(db: Q): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom("jobs")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("state")
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}
