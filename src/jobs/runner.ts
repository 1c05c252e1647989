/**
 * @module jobs/runner
 * One loop that drains the durable job queue: claims a due job, runs its handler, records the
 * outcome. It polls every `pollMs` and is nudged when new work is queued, so it is neither a
 * timer per job nor a busy loop. Handlers throw {@link PermanentJobError} for failures that
 * retrying cannot fix (corrupt audio), anything else is retried with backoff. A job whose last
 * attempt was interrupted (the process died running it) is given up, never run again. A handler
 * that throws {@link WaitingJobError} parks its job (`waiting`, no attempt used) until the
 * runner's `resume.ready()` holds, then it is queued again by itself.
 */
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import { claimJob, completeJob, countWaitingJobs, exhaustedJobs, failJob, parkJob, recoverRunningJobs, resumeWaitingJobs, type Job, type JobKind } from "./queue.ts";

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
  /** Starts the loop (recovering jobs a crashed process left running). */
  start(): Promise<void>;
  /** Asks the loop to look for work now. */
  nudge(): void;
  /** Stops claiming and waits for the job in hand to finish. */
  stop(): Promise<void>;
}

/**
 * Builds the runner.
 * @param handlers one handler per job kind
 * @param onGiveUp called after the final failure of a job
 */
export function createJobRunner(opts: {
  db: Kysely<Database>;
  log: Logger;
  pollMs: number;
  handlers: Record<JobKind, JobHandler>;
  onGiveUp: JobGiveUp;
  /**
   * Parked jobs of `kind` are queued again when `ready()` turns true (checked at start and every
   * `everyMs` while some wait), e.g. once the ASR model's files appear.
   */
  resume?: { kind: JobKind; ready: () => boolean | Promise<boolean>; everyMs: number };
}): JobRunner {
  let running = false;
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;

  /** Gives a job up: `onGiveUp` first, then failed — a crash in between repeats both, harmlessly. */
  async function giveUp(job: Job, message: string): Promise<void> {
    try {
      await opts.onGiveUp(job, message);
    } catch (err) {
      opts.log.error("job give-up handler failed", { id: job.id, kind: job.kind, error: String(err) });
    }
    await failJob(opts.db, job, message, true);
  }

  let lastResumeCheck = 0;
  /** Queues parked jobs again once their condition holds (at most every `resume.everyMs`). */
  async function resumeIfReady(force = false): Promise<void> {
    const r = opts.resume;
    if (!r || (!force && Date.now() - lastResumeCheck < r.everyMs)) return;
    lastResumeCheck = Date.now();
    if ((await countWaitingJobs(opts.db, r.kind)) === 0 || !(await r.ready())) return;
    const n = await resumeWaitingJobs(opts.db, r.kind);
    if (n) opts.log.info("resumed waiting jobs", { kind: r.kind, count: n });
  }

  async function runOne(job: Job): Promise<void> {
    try {
      await opts.handlers[job.kind](job);
      await completeJob(opts.db, job.id);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof WaitingJobError) {
        opts.log.warn("job waits", { id: job.id, kind: job.kind, reason: message });
        await parkJob(opts.db, job, message);
        return;
      }
      const permanent = err instanceof PermanentJobError;
      opts.log.warn("job failed", { id: job.id, kind: job.kind, attempt: job.attempts, permanent, error: message });
      if (permanent || job.attempts >= job.maxAttempts) await giveUp(job, message);
      else await failJob(opts.db, job, message, false);
    }
  }

  /** Gives up the jobs whose every attempt was interrupted. @returns how many */
  async function giveUpExhausted(): Promise<number> {
    const jobs = await exhaustedJobs(opts.db);
    for (const job of jobs) {
      const message = `Gave up after ${job.attempts} attempts: the process stopped while running this job each time.`;
      opts.log.error("job given up after interrupted attempts", { id: job.id, kind: job.kind, attempts: job.attempts });
      await giveUp(job, message);
    }
    return jobs.length;
  }

  async function drain(): Promise<void> {
    while (running) {
      let job: Job | null = null;
      try {
        await resumeIfReady();
        if ((await giveUpExhausted()) > 0) continue;
        job = await claimJob(opts.db);
      } catch (err) {
        opts.log.error("job claim failed", { error: String(err) });
      }
      if (job) {
        await runOne(job);
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, opts.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  }

  return {
    async start() {
      if (running) return;
      const recovered = await recoverRunningJobs(opts.db);
      if (recovered) opts.log.info("recovered interrupted jobs", { count: recovered });
      await resumeIfReady(true);
      running = true;
      loop = drain();
    },
    nudge() {
      wake?.();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
