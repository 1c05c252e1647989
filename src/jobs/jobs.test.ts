import { afterEach, beforeEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db } from "../db/client.ts";
import { dropTestDatabase, openTestDatabase } from "../../test/helpers/db.ts";
import { createLogger } from "../logger.ts";
import { createManualClock } from "../clock.ts";
import {
  claimJob,
  completeJob,
  enqueueJob,
  exhaustedJobs,
  failJob,
  JOB_LEASE_S,
  JOB_RETENTION_DAYS,
  jobCounts,
  pruneJobs,
  recoverRunningJobs,
  renewJobLease,
} from "./queue.ts";
import { createJobRunner, PermanentJobError } from "./runner.ts";

let dir: string;
let db: Db;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-jobs-"));
  db = await openTestDatabase(dir);
});
afterEach(async () => {
  await db.destroy();
  await dropTestDatabase(dir);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a job written in a rolled-back transaction never exists", async () => {
  await db
    .transaction()
    .execute(async (trx) => {
      await enqueueJob(trx, "transcribe", { answer_uuid: "a" });
      throw new Error("the submission failed");
    })
    .catch(() => {});
  expect(await jobCounts(db)).toEqual({});
});

test("an analysis queued behind a backlog of transcriptions is claimed first", async () => {
  for (let n = 0; n < 5; n++) await enqueueJob(db, "transcribe", { n });
  await enqueueJob(db, "analyse", { answer_uuid: "typed" });
  expect(await claimJob(db)).toMatchObject({ kind: "analyse", payload: { answer_uuid: "typed" } });
  expect(await claimJob(db)).toMatchObject({ kind: "transcribe", payload: { n: 0 } });
});

test("claims take a lease, count attempts, and prefer higher priority", async () => {
  await enqueueJob(db, "transcribe", { n: 1 });
  await enqueueJob(db, "analyse", { n: 2 }, 10);
  const first = await claimJob(db);
  expect(first).toMatchObject({ kind: "analyse", payload: { n: 2 }, attempts: 1 });
  const second = await claimJob(db);
  expect(second).toMatchObject({ kind: "transcribe", attempts: 1 });
  expect(await claimJob(db)).toBeNull();
  expect(await jobCounts(db)).toEqual({ running: 2 });
});

test("an expired lease makes a running job claimable again (crash recovery)", async () => {
  await enqueueJob(db, "transcribe", { n: 1 });
  const job = await claimJob(db, -1); // lease already expired, as after a crash
  expect(job).not.toBeNull();
  const again = await claimJob(db);
  expect(again).toMatchObject({ id: job!.id, attempts: 2 });
  expect(await recoverRunningJobs(db)).toBe(1);
  expect(await jobCounts(db)).toEqual({ queued: 1 });
});

test("failures back off and end in failed after max attempts; permanent failures end at once", async () => {
  const clock = createManualClock();
  await enqueueJob(db, "transcribe", {}, 0, clock);
  let job = (await claimJob(db, JOB_LEASE_S, clock))!;
  expect(await failJob(db, job, "model busy", false, clock)).toBe(false);
  const row = await db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
  expect(row.state).toBe("queued");
  expect(Date.parse(row.run_at) - clock.nowMs()).toBe(5000); // 5 s · 4^0
  clock.advance(4999);
  expect(await claimJob(db, JOB_LEASE_S, clock)).toBeNull(); // not due yet
  // Each retry waits 4× longer (5, 20, 80, 320 s); the fifth failure is the last.
  for (const waitS of [5, 20, 80, 320]) {
    clock.advance(waitS * 1000);
    job = (await claimJob(db, JOB_LEASE_S, clock))!;
    expect(await claimJob(db, JOB_LEASE_S, clock)).toBeNull();
    expect(await failJob(db, job, "still busy", false, clock)).toBe(job.attempts === 5);
  }
  expect(job.attempts).toBe(5);
  await enqueueJob(db, "analyse", {}, 1, clock);
  const other = (await claimJob(db, JOB_LEASE_S, clock))!;
  expect(await failJob(db, other, "corrupt", true, clock)).toBe(true);
  expect(await jobCounts(db)).toEqual({ failed: 2 });
});

test("a claimer that lost its lease records nothing; the heartbeat keeps a long job's lease", async () => {
  const clock = createManualClock();
  await enqueueJob(db, "transcribe", { n: 1 }, 0, clock);
  const first = (await claimJob(db, 30, clock))!;
  clock.advance(10_000);
  const renewed = (await renewJobLease(db, first, 30, clock))!; // the heartbeat at a third of the lease
  expect(renewed.leaseUntil).not.toBe(first.leaseUntil);
  clock.advance(25_000); // 35 s after the claim: alive only thanks to the renewal
  expect(await claimJob(db, 30, clock)).toBeNull();
  clock.advance(30_000); // the node stalled: the lease expires, another node takes the job
  const second = (await claimJob(db, 30, clock))!;
  expect(second).toMatchObject({ id: first.id, attempts: 2 });
  expect(await renewJobLease(db, renewed, 30, clock)).toBeNull();
  expect(await completeJob(db, renewed, clock)).toBe(false); // the stalled node's late finish changes nothing
  expect(await failJob(db, renewed, "late", false, clock)).toBe(false);
  expect(await jobCounts(db)).toEqual({ running: 1 });
  expect(await completeJob(db, second, clock)).toBe(true);
  expect(await jobCounts(db)).toEqual({ done: 1 });
});

test("finished jobs are pruned after their retention; queued, running and recent ones stay", async () => {
  const clock = createManualClock();
  for (let n = 0; n < 4; n++) await enqueueJob(db, "analyse", { n }, 1, clock);
  const done = (await claimJob(db, 30, clock))!;
  await completeJob(db, done, clock);
  const failed = (await claimJob(db, 30, clock))!;
  await failJob(db, failed, "corrupt", true, clock);
  await claimJob(db, 30, clock); // one stays running, one queued
  clock.advance(JOB_RETENTION_DAYS.done * 86_400_000 + 1000);
  expect(await pruneJobs(db, JOB_RETENTION_DAYS, clock)).toBe(1);
  expect(await jobCounts(db)).toEqual({ failed: 1, running: 1, queued: 1 });
  clock.advance(JOB_RETENTION_DAYS.failed * 86_400_000);
  expect(await pruneJobs(db, JOB_RETENTION_DAYS, clock)).toBe(1);
  expect(await jobCounts(db)).toEqual({ running: 1, queued: 1 });
});

test("the runner runs handlers, retries transient errors and reports the final failure", async () => {
  const seen: string[] = [];
  const gaveUp: string[] = [];
  const runner = createJobRunner({
    db,
    log: createLogger("silent"),
    pollMs: 20,
    handlers: {
      mail: async () => {},
      themes: async () => {},
      transcribe: async (j) => {
        seen.push(`t${j.attempts}`);
      },
      analyse: async () => {
        throw new PermanentJobError("cannot analyse");
      },
    },
    onGiveUp: async (j, e) => {
      gaveUp.push(`${j.kind}: ${e}`);
    },
  });
  await runner.start();
  await enqueueJob(db, "transcribe", {});
  await enqueueJob(db, "analyse", {});
  runner.nudge();
  for (let i = 0; i < 50 && (seen.length < 1 || gaveUp.length < 1); i++) await Bun.sleep(20);
  await runner.stop();
  expect(seen).toEqual(["t1"]);
  expect(gaveUp).toEqual(["analyse: cannot analyse"]);
  expect(await jobCounts(db)).toEqual({ done: 1, failed: 1 });
});

test("a job whose every attempt is interrupted (the process dies running it) is claimed max_attempts times, then given up", async () => {
  await enqueueJob(db, "transcribe", { answer_uuid: "poison" });
  let claims = 0;
  for (let i = 0; i < 20; i++) {
    const job = await claimJob(db);
    if (job === null) break;
    claims++;
    expect(job.attempts).toBe(claims);
    expect(await recoverRunningJobs(db)).toBe(1); // the next start after the crash
  }
  expect(claims).toBe(5);
  expect(await exhaustedJobs(db)).toMatchObject([{ kind: "transcribe", attempts: 5, maxAttempts: 5, payload: { answer_uuid: "poison" } }]);

  const ran: number[] = [];
  const gaveUp: string[] = [];
  const runner = createJobRunner({
    db,
    log: createLogger("silent"),
    pollMs: 20,
    handlers: {
      mail: async () => {},
      themes: async () => {},
      transcribe: async (j) => {
        ran.push(j.id);
      },
      analyse: async () => {},
    },
    onGiveUp: async (j, e) => {
      gaveUp.push(`${j.kind} ${j.attempts}: ${e}`);
    },
  });
  await runner.start();
  for (let i = 0; i < 50 && gaveUp.length < 1; i++) await Bun.sleep(20);
  await runner.stop();
  expect(ran).toEqual([]);
  expect(gaveUp).toEqual([expect.stringMatching(/^transcribe 5: Gave up after 5 attempts/)]);
  const row = await db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
  expect([row.state, row.attempts, row.last_error]).toEqual(["failed", 5, expect.stringContaining("process stopped")]);
  expect(await exhaustedJobs(db)).toEqual([]);
});

test("an expired lease on the last attempt is given up, not claimed a sixth time", async () => {
  await enqueueJob(db, "analyse", {});
  for (let i = 0; i < 5; i++) expect(await claimJob(db, -1)).not.toBeNull(); // each lease already expired
  expect(await claimJob(db)).toBeNull();
  expect((await exhaustedJobs(db)).map((j) => j.attempts)).toEqual([5]);
});

test("claimers on separate connections (nodes) racing for a backlog take every job exactly once", async () => {
  const other = await openTestDatabase(dir); // the same database, as a second node opens it
  try {
    for (let n = 0; n < 40; n++) await enqueueJob(db, "transcribe", { n });
    const claimed: number[] = [];
    const claimer = async (q: Db) => {
      for (;;) {
        const job = await claimJob(q);
        if (!job) return;
        claimed.push(job.payload.n as number);
        expect(await completeJob(q, job)).toBe(true);
      }
    };
    await Promise.all([claimer(db), claimer(other), claimer(db), claimer(other)]);
    expect(claimed.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(await jobCounts(db)).toEqual({ done: 40 });
  } finally {
    await other.destroy();
  }
});

test("a job that fails after its lease was renewed is recorded under the renewed lease (retried, not left running)", async () => {
  let runs = 0;
  const runner = createJobRunner({
    db,
    log: createLogger("silent"),
    pollMs: 20,
    leaseS: 0.3, // renewed every 100 ms
    handlers: {
      mail: async () => {},
      themes: async () => {},
      transcribe: async () => {
        runs++;
        await Bun.sleep(350); // three renewals
        throw new Error("model busy");
      },
      analyse: async () => {},
    },
    onGiveUp: async () => {},
  });
  await enqueueJob(db, "transcribe", {});
  await runner.start();
  for (let i = 0; i < 100 && runs < 1; i++) await Bun.sleep(20);
  for (let i = 0; i < 100 && (await jobCounts(db)).running; i++) await Bun.sleep(20);
  await runner.stop();
  const row = await db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
  expect([row.state, row.attempts, row.last_error, row.lease_until]).toEqual(["queued", 1, "model busy", null]);
  expect(runs).toBe(1);
});
