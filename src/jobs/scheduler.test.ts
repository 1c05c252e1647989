/**
 * The one scheduler (src/jobs/scheduler.ts) on the test engine (SQLite, or PostgreSQL with
 * EARSHOT_TEST_DATABASE_URL), on a manual clock: two nodes (two connections to one database, each
 * with its own scheduler and job runner) run a periodic task once per period, not twice; a failing
 * run is retried by the queue; a new period queues a new run.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createManualClock, type ManualClock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { createLogger } from "../logger.ts";
import { dropTestDatabase, openTestDatabase } from "../../test/helpers/db.ts";
import { JOB_BACKOFF, type Job } from "./queue.ts";
import { createJobRunner, type JobHandler, type JobRunner } from "./runner.ts";
import { createScheduler, periodStart, type PeriodicTask, type Scheduler } from "./scheduler.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const log = createLogger("error");
/** 2026-11-28T10:05:00Z: inside the hour, before the task's minute 23. */
const START_MS = Date.parse("2026-11-28T10:05:00Z");

let dir: string;
let nodes: { db: Db; scheduler: Scheduler; runner: JobRunner }[];
let clock: ManualClock;
let runs: string[];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-scheduler-"));
  clock = createManualClock(START_MS);
  runs = [];
  nodes = [];
});
afterEach(async () => {
  for (const n of nodes) await n.runner.stop();
  for (const n of nodes) await n.db.destroy();
  await dropTestDatabase(dir);
  fs.rmSync(dir, { recursive: true, force: true });
});

const notPeriodic: JobHandler = async (job) => {
  throw new Error(`no ${job.kind} job is queued in this test`);
};

/** A node: its own connection to the one database, its scheduler over `task`, its runner. */
async function startNode(task: PeriodicTask) {
  const db = await openTestDatabase(dir);
  const scheduler = createScheduler({ db, clock, log, tasks: [task] });
  const runner = createJobRunner({
    db,
    log,
    clock,
    pollMs: 10,
    handlers: { transcribe: notPeriodic, analyse: notPeriodic, themes: notPeriodic, mail: notPeriodic, periodic: scheduler.handler },
    onGiveUp: async () => {},
  });
  const node = { db, scheduler, runner };
  nodes.push(node);
  await runner.start();
  return node;
}

/** The periodic job rows, oldest first. */
async function periodicJobs(db: Db) {
  return db.selectFrom("jobs").select(["unique_key", "state", "attempts", "last_error"]).where("kind", "=", "periodic").orderBy("id").execute();
}

/** Waits (bounded) until no periodic job is queued or running and due. */
async function settled(db: Db): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const open = (await periodicJobs(db)).filter((j) => j.state === "running" || (j.state === "queued" && j.attempts === 0));
    if (open.length === 0) return;
    for (const n of nodes) n.runner.nudge();
    await Bun.sleep(10);
  }
  throw new Error(`periodic jobs did not settle: ${JSON.stringify(await periodicJobs(db))}`);
}

const hourly = (run: (period: string) => Promise<unknown>): PeriodicTask => ({ name: "tidy", everyMs: HOUR_MS, offsetMs: 23 * MINUTE_MS, run });

test("a period starts on its offset: minute 23 of the hour", () => {
  expect(new Date(periodStart(Date.parse("2026-11-28T10:05:00Z"), HOUR_MS, 23 * MINUTE_MS)).toISOString()).toBe("2026-11-28T09:23:00.000Z");
  expect(new Date(periodStart(Date.parse("2026-11-28T10:23:00Z"), HOUR_MS, 23 * MINUTE_MS)).toISOString()).toBe("2026-11-28T10:23:00.000Z");
  expect(new Date(periodStart(Date.parse("2026-11-28T11:22:59Z"), HOUR_MS, 23 * MINUTE_MS)).toISOString()).toBe("2026-11-28T10:23:00.000Z");
});

test("two nodes on one database run a periodic task once per period, not twice", async () => {
  const task = hourly(async (period) => runs.push(period));
  const a = await startNode(task);
  const b = await startNode(task);
  // Both schedulers tick at once in the period that began at 09:23: one row, one run.
  const inserted = (await Promise.all([a.scheduler.tick(), b.scheduler.tick()])).flat();
  expect(inserted).toEqual(["tidy@2026-11-28T09:23:00.000000Z"]);
  await settled(a.db);
  expect(runs).toEqual(["2026-11-28T09:23:00.000000Z"]);
  // Later ticks in the same period (either node) queue nothing more.
  clock.set(Date.parse("2026-11-28T10:20:00Z"));
  expect([...(await a.scheduler.tick()), ...(await b.scheduler.tick())]).toEqual([]);
  // The next period (from 10:23) queues one new run, taken by one node.
  clock.set(Date.parse("2026-11-28T10:24:00Z"));
  await Promise.all([b.scheduler.tick(), a.scheduler.tick()]);
  await settled(a.db);
  expect(runs).toEqual(["2026-11-28T09:23:00.000000Z", "2026-11-28T10:23:00.000000Z"]);
  expect((await periodicJobs(b.db)).map((j) => [j.unique_key, j.state, j.attempts])).toEqual([
    ["tidy@2026-11-28T09:23:00.000000Z", "done", 1],
    ["tidy@2026-11-28T10:23:00.000000Z", "done", 1],
  ]);
});

test("a failing periodic run is retried with the queue's backoff, then done", async () => {
  let failures = 1;
  const a = await startNode(
    hourly(async (period) => {
      runs.push(period);
      if (failures-- > 0) throw new Error("the disk was busy");
    }),
  );
  await a.scheduler.tick();
  await settled(a.db);
  expect(runs.length).toBe(1);
  expect(await periodicJobs(a.db)).toEqual([{ unique_key: "tidy@2026-11-28T09:23:00.000000Z", state: "queued", attempts: 1, last_error: "the disk was busy" }]);
  // Not before its backoff is over...
  clock.advance((JOB_BACKOFF(1)! - 1) * 1000);
  a.runner.nudge();
  await Bun.sleep(50);
  expect(runs.length).toBe(1);
  // ...then once more, and done.
  clock.advance(2000);
  for (let i = 0; i < 500 && runs.length < 2; i++) {
    a.runner.nudge();
    await Bun.sleep(10);
  }
  await settled(a.db);
  expect(runs).toEqual(["2026-11-28T09:23:00.000000Z", "2026-11-28T09:23:00.000000Z"]);
  expect((await periodicJobs(a.db)).map((j) => [j.state, j.attempts])).toEqual([["done", 2]]);
});

test("a periodic job naming no task of this scheduler is given up, not retried", async () => {
  const a = await startNode(hourly(async (period) => runs.push(period)));
  const job: Job = { id: 0, kind: "periodic", payload: { task: "gone", period: "x" }, attempts: 1, maxAttempts: 5 };
  await expect(a.scheduler.handler(job)).rejects.toThrow("No periodic task named gone");
  expect(() => createScheduler({ db: a.db, clock, log, tasks: [hourly(async () => {}), hourly(async () => {})] })).toThrow("two periodic tasks are named tidy");
});
