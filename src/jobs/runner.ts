/**
 * @module jobs/runner
 * One loop that drains the durable job queue: claims a due job, runs its handler, records the
 * outcome. It polls every `pollMs` and is nudged when new work is queued, so it is neither a
 * timer per job nor a busy loop. Handlers throw {@link PermanentJobError} for failures that
 * retrying cannot fix (corrupt audio), anything else is retried with backoff. A job whose last
 * attempt was interrupted (the process died running it) is given up, never run again.
 */
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import { claimJob, completeJob, exhaustedJobs, failJob, recoverRunningJobs, type Job, type JobKind } from "./queue.ts";

/** A failure that retrying will not fix. */
export class PermanentJobError extends Error {
  override name = "PermanentJobError";
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

  async function runOne(job: Job): Promise<void> {
    try {
      await opts.handlers[job.kind](job);
      await completeJob(opts.db, job.id);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
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
