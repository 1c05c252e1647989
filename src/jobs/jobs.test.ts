import { afterEach, beforeEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateToLatest, openDatabase, type Db } from "../db/client.ts";
import { createLogger } from "../logger.ts";
import { claimJob, enqueueJob, failJob, jobCounts, recoverRunningJobs } from "./queue.ts";
import { createJobRunner, PermanentJobError } from "./runner.ts";

let dir: string;
let db: Db;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-jobs-"));
  db = openDatabase(path.join(dir, "earshot.db"));
  await migrateToLatest(db);
});
afterEach(async () => {
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a job written in a rolled-back transaction never exists", async () => {
  await db.transaction().execute(async (trx) => {
    await enqueueJob(trx, "transcribe", { answer_uuid: "a" });
    throw new Error("the submission failed");
  }).catch(() => {});
  expect(await jobCounts(db)).toEqual({});
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
  await enqueueJob(db, "transcribe", {});
  const job = (await claimJob(db))!;
  expect(await failJob(db, job, "model busy", false)).toBe(false);
  const row = await db.selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
  expect(row.state).toBe("queued");
  expect(Date.parse(row.run_at) - Date.now()).toBeGreaterThan(3000);
  expect(await claimJob(db)).toBeNull(); // not due yet
  expect(await failJob(db, { ...job, attempts: 5 }, "still busy", false)).toBe(true);
  await enqueueJob(db, "analyse", {});
  const other = (await claimJob(db))!;
  expect(await failJob(db, other, "corrupt", true)).toBe(true);
  expect(await jobCounts(db)).toEqual({ failed: 2 });
});

test("the runner runs handlers, retries transient errors and reports the final failure", async () => {
  const seen: string[] = [];
  const gaveUp: string[] = [];
  const runner = createJobRunner({
    db,
    log: createLogger("silent"),
    pollMs: 20,
    handlers: {
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
