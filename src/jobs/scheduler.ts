/**
 * @module jobs/scheduler
 * The one scheduler of periodic work (issue 23 step 4; docs/architecture.md "Periodic work"): each
 * task has a period (every `everyMs`, starting `offsetMs` into it — "23 minutes past every hour"),
 * and at every tick the scheduler queues the current period's run as an ordinary durable job
 * (kind `periodic`) under the unique key `task@periodStart`. On several nodes every scheduler
 * inserts the same key and the unique index keeps one row, so each period runs once per cluster,
 * by whichever node claims it, with the queue's lease, backoff and retries (the way Graphile
 * Worker turns cron into jobs). A period missed while every node was down is not made up: the
 * next period's run covers it (every task works off what is due, not off the period).
 *
 * Periods are counted on the injected clock, so a manual clock drives them in tests; the timer
 * that calls {@link Scheduler.tick} is real. The tasks themselves are listed once, in
 * src/periodic.ts (this folder knows no feature).
 */
import type { Kysely } from "kysely";
import { formatMicros, type Clock } from "../clock.ts";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import { enqueueUniqueJob, type Job } from "./queue.ts";
import { PermanentJobError, type JobHandler } from "./runner.ts";

/** One periodic task. */
export type PeriodicTask = {
  /** Unique among the tasks: the job payload's `task` and the key's prefix. */
  name: string;
  /** The period, in ms (3,600,000: hourly). */
  everyMs: number;
  /** Where in the period it is due, in ms from the period's start on the epoch grid (0 by default). */
  offsetMs?: number;
  /**
   * One run. Throwing retries it with the queue's backoff (a PermanentJobError gives it up).
   * @param periodIso the start of the period the run is for (API timestamp, `…T10:23:00.000000Z`)
   */
  run(periodIso: string): Promise<unknown>;
};

/** How often the scheduler looks whether a new period began, in ms (real time). */
export const SCHEDULER_TICK_MS = 30_000;

export interface Scheduler {
  /** Queues the current period's run of every task that has none yet. @returns the keys this call inserted */
  tick(): Promise<string[]>;
  /** The job handler of kind `periodic`: runs the task the job names. */
  handler: JobHandler;
  /** Ticks now and then every `tickMs`. */
  start(): Promise<void>;
  /** Stops ticking and waits for a tick in progress. */
  stop(): Promise<void>;
}

/**
 * Start of the period containing `nowMs`.
 * @returns ms since the epoch; `nowMs` itself when it is a period's start
 */
export function periodStart(nowMs: number, everyMs: number, offsetMs = 0): number {
  return Math.floor((nowMs - offsetMs) / everyMs) * everyMs + offsetMs;
}

/**
 * Builds the scheduler over `tasks`.
 * @param tickMs default {@link SCHEDULER_TICK_MS}
 * @throws Error when two tasks share a name or a period is not positive
 */
export function createScheduler(opts: { db: Kysely<Database>; clock: Clock; log: Logger; tasks: PeriodicTask[]; tickMs?: number }): Scheduler {
  const byName = new Map<string, PeriodicTask>();
  for (const t of opts.tasks) {
    if (byName.has(t.name)) throw new Error(`two periodic tasks are named ${t.name}`);
    if (!(t.everyMs > 0)) throw new Error(`periodic task ${t.name}: everyMs must be positive`);
    byName.set(t.name, t);
  }
  let timer: ReturnType<typeof setInterval> | null = null;
  let ticking: Promise<unknown> = Promise.resolve();

  async function tick(): Promise<string[]> {
    const inserted: string[] = [];
    for (const t of opts.tasks) {
      // In the API's timestamp format, so `run_at` compares with the clock's timestamps as text.
      const period = formatMicros(BigInt(periodStart(opts.clock.nowMs(), t.everyMs, t.offsetMs)) * 1000n);
      const key = `${t.name}@${period}`;
      if (await enqueueUniqueJob(opts.db, "periodic", { task: t.name, period }, key, period, opts.clock)) inserted.push(key);
    }
    return inserted;
  }

  const guardedTick = () => {
    ticking = tick().catch((err) => opts.log.error("scheduler: queueing periodic work failed", { error: String(err) }));
    return ticking;
  };

  return {
    tick,
    async handler(job: Job) {
      const task = byName.get(String(job.payload.task));
      if (!task) throw new PermanentJobError(`No periodic task named ${String(job.payload.task)} here.`);
      await task.run(String(job.payload.period));
    },
    async start() {
      if (timer) return;
      timer = setInterval(guardedTick, opts.tickMs ?? SCHEDULER_TICK_MS);
      await guardedTick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await ticking;
    },
  };
}
