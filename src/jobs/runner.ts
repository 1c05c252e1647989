/**
 * @module jobs/runner
 * One loop that drains the durable job queue: claims a due job, runs its handler, records the
 * outcome. It polls every `pollMs` and is nudged when new work is queued, so it is neither a
 * timer per job nor a busy loop. Handlers throw {@link PermanentJobError} for failures that
 * retrying cannot fix (corrupt audio), anything else is retried with backoff. A job whose last
 * attempt was interrupted (the process died running it) is given up, never run again. A handler
 * that throws {@link WaitingJobError} parks its job (`waiting`, no attempt used) until the
 * runner's `resume.ready()` holds, then it is queued again by itself. The loop, the lease and
 * the backoff are the shared queue skeleton's (src/queue/durable-queue.ts): while a handler runs,
 * its lease is renewed every third of {@link JOB_LEASE_S}; the outcome is recorded only while the
 * lease is still ours. Finished jobs are pruned by a periodic job (src/jobs/scheduler.ts, src/periodic.ts).
 */
import type { Kysely } from "kysely";
import { systemClock, type Clock } from "../clock.ts";
import { engineOf } from "../db/engine.ts";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import { createPollingLoop } from "../queue/durable-queue.ts";
import {
  claimJob,
  completeJob,
  countWaitingJobs,
  exhaustedJobs,
  failJob,
  JOB_LEASE_S,
  LeaseLostError,
  parkJob,
  recoverRunningJobs,
  renewJobLease,
  resumeWaitingJobs,
  type Job,
  type JobKind,
} from "./queue.ts";
import { jobsFinished } from "../metrics/instruments.ts";

/** A failure that retrying will not fix. */
export class PermanentJobError extends Error {
  override name = "PermanentJobError";
}

/**
 * The job cannot run until something outside is fixed (the ASR model is not installed): it is
 * parked as `waiting` without using an attempt, and resumed when the runner's `resume.ready()`
 * says so.
 */
export class WaitingJobError extends Error {
  override name = "WaitingJobError";
}

export type JobHandler = (job: Job) => Promise<void>;
/**
 * Called once a job will not run again after failing (e.g. mark its answer failed), before the
 * job is marked failed; it may be called twice for one job after a crash, so make it idempotent.
 */
export type JobGiveUp = (job: Job, error: string) => Promise<void>;

export interface JobRunner {
  /** Starts the loop (on SQLite, first recovering the jobs a crashed process left running). */
  start(): Promise<void>;
  /** Asks the loop to look for work now. */
  nudge(): void;
  /** Stops claiming and waits for the job in hand to finish. */
  stop(): Promise<void>;
  /** When the loop last looked for work (ms), or null while it is not running (readiness). */
  lastTurnMs(): number | null;
}

/** A job of a kind this runner has no handler for (a periodic run on a runner without a scheduler). */
const noHandler: JobHandler = async (job) => {
  throw new PermanentJobError(`No handler for jobs of kind ${job.kind} here.`);
};

/**
 * Builds the runner.
 * @param handlers one handler per job kind
 * @param onGiveUp called after the final failure of a job
 * @param leaseS the lease of a claimed job (default {@link JOB_LEASE_S}); renewed every third of it
 * @param clock the time source of leases, backoff and upkeep (default the system clock)
 */
export function createJobRunner(opts: {
  db: Kysely<Database>;
  log: Logger;
  pollMs: number;
  /** One handler per job kind; `periodic` only where a scheduler queues its runs (src/jobs/scheduler.ts). */
  handlers: Record<Exclude<JobKind, "periodic">, JobHandler> & { periodic?: JobHandler };
  onGiveUp: JobGiveUp;
  /**
   * Parked jobs of `kind` are queued again when `ready()` turns true (checked at start and every
   * `everyMs` while some wait), e.g. once the ASR model's files appear.
   */
  resume?: { kind: JobKind; ready: () => boolean | Promise<boolean>; everyMs: number };
  leaseS?: number;
  clock?: Clock;
}): JobRunner {
  const { db, log } = opts;
  const clock = opts.clock ?? systemClock;
  const leaseS = opts.leaseS ?? JOB_LEASE_S;

  /** Gives a job up: `onGiveUp` first, then failed — a crash in between repeats both, harmlessly. */
  async function giveUp(job: Job, message: string): Promise<void> {
    try {
      await opts.onGiveUp(job, message);
    } catch (err) {
      log.error("job give-up handler failed", { id: job.id, kind: job.kind, error: String(err) });
    }
    await failJob(db, job, message, true, clock);
  }

  /** Queues parked jobs again once their condition holds. */
  async function resumeIfReady(): Promise<void> {
    const r = opts.resume;
    if (!r) return;
    if ((await countWaitingJobs(db, r.kind)) === 0 || !(await r.ready())) return;
    const n = await resumeWaitingJobs(db, r.kind, clock);
    if (n) log.info("resumed waiting jobs", { kind: r.kind, count: n });
  }

  /**
   * Runs `work` while renewing `job`'s lease every third of it; `renewed` receives the job with each
   * new lease token (so the outcome, success or failure, is recorded under the latest one).
   * @returns whether the lease was lost meanwhile
   */
  async function withHeartbeat(job: Job, work: () => Promise<void>, renewed: (j: Job) => void): Promise<boolean> {
    let current = job;
    let lost = false;
    let beating: Promise<void> = Promise.resolve();
    const timer = setInterval(
      () => {
        beating = beating.then(async () => {
          if (lost) return;
          const next = await renewJobLease(db, current, leaseS, clock).catch(() => current); // a failed write: try again next beat
          if (next) renewed((current = next));
          else lost = true;
        });
      },
      Math.max(10, (leaseS * 1000) / 3),
    );
    try {
      await work();
    } finally {
      clearInterval(timer);
      await beating;
    }
    return lost;
  }

  async function runOne(claimed: Job): Promise<void> {
    let job = claimed;
    try {
      await withHeartbeat(
        claimed,
        () => (opts.handlers[claimed.kind] ?? noHandler)(claimed),
        (j) => (job = j),
      );
      const completed = await completeJob(db, job, clock);
      jobsFinished.labels(claimed.kind, completed ? "done" : "lost").inc();
      if (!completed) {
        log.warn("job finished after losing its lease; another claimer has it", { id: job.id, kind: job.kind, attempt: job.attempts });
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof LeaseLostError) {
        // Another claimer runs this job now (our lease expired): its outcome is theirs to record.
        log.warn("job result dropped: another claimer has the job", { id: job.id, kind: job.kind, attempt: job.attempts });
        jobsFinished.labels(claimed.kind, "lost").inc();
        return;
      }
      if (err instanceof WaitingJobError) {
        log.warn("job waits", { id: job.id, kind: job.kind, reason: message });
        await parkJob(db, job, message, clock);
        jobsFinished.labels(claimed.kind, "waiting").inc();
        return;
      }
      const permanent = err instanceof PermanentJobError;
      log.warn("job failed", { id: job.id, kind: job.kind, attempt: job.attempts, permanent, error: message });
      const final = permanent || job.attempts >= job.maxAttempts;
      if (final) await giveUp(job, message);
      else await failJob(db, job, message, false, clock);
      jobsFinished.labels(claimed.kind, final ? "failed" : "retry").inc();
    }
  }

  /** Gives up the jobs whose every attempt was interrupted. @returns how many */
  async function giveUpExhausted(): Promise<number> {
    const jobs = await exhaustedJobs(db, 10, clock);
    for (const job of jobs) {
      const message = `Gave up after ${job.attempts} attempts: the process stopped while running this job each time.`;
      log.error("job given up after interrupted attempts", { id: job.id, kind: job.kind, attempts: job.attempts });
      await giveUp(job, message);
    }
    return jobs.length;
  }

  const loop = createPollingLoop({
    name: "job runner",
    pollMs: opts.pollMs,
    log,
    clock,
    async step() {
      if ((await giveUpExhausted()) > 0) return true;
      const job = await claimJob(db, leaseS, clock);
      if (!job) return false;
      await runOne(job);
      return true;
    },
    periodic: [...(opts.resume ? [{ name: "resume waiting jobs", everyMs: opts.resume.everyMs, run: resumeIfReady }] : [])],
  });
  let started = false;

  return {
    async start() {
      if (started) return;
      started = true;
      // One SQLite process owns the queue: a lease left behind is a crashed run of this appliance.
      // On PostgreSQL other nodes may hold live leases; a dead node's expire by themselves.
      if (engineOf(db).singleProcess) {
        const recovered = await recoverRunningJobs(db, clock);
        if (recovered) log.info("recovered interrupted jobs", { count: recovered });
      }
      await resumeIfReady();
      loop.start();
    },
    nudge() {
      loop.nudge();
    },
    lastTurnMs: () => loop.lastTurnMs(),
    async stop() {
      started = false;
      await loop.stop();
    },
  };
}
