/**
 * Periodic work as jobs in real `earshot serve` processes (issue 23 step 4; src/jobs/scheduler.ts,
 * src/periodic.ts): every periodic task's run of the current period is queued once and run once —
 * by two processes on one PostgreSQL database (each has a scheduler and a job runner), or by one
 * process on SQLite — and a restart within the period queues nothing again.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dropTestDatabase, onPostgres, openTestDatabase } from "../helpers/db.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";

const TASKS = ["audit-prune", "delivery-log-prune", "digests", "intake-purge", "jobs-prune", "retention"];
const root = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-periodic-"));
const dataDir = path.join(root, "data");
const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await dropTestDatabase(dataDir).catch(() => undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

/** The periodic job rows. */
async function periodicRows() {
  const db = await openTestDatabase(dataDir);
  try {
    return await db.selectFrom("jobs").select(["unique_key", "state", "payload"]).where("kind", "=", "periodic").orderBy("id").execute();
  } finally {
    await db.destroy();
  }
}

/** Waits (bounded, 60 s) until every task has a run and none is queued or running. */
async function allRunsDone() {
  for (let i = 0; i < 300; i++) {
    const rows = await periodicRows();
    const tasks = new Set(rows.map((r) => (JSON.parse(r.payload) as { task: string }).task));
    if (TASKS.every((t) => tasks.has(t)) && rows.every((r) => r.state === "done")) return rows;
    await Bun.sleep(200);
  }
  throw new Error(`periodic runs not done: ${JSON.stringify(await periodicRows())}`);
}

test("each periodic task runs once per period however many nodes serve, and a restart in the period queues nothing more", async () => {
  fs.mkdirSync(dataDir, { recursive: true });
  const env = { EARSHOT_JOB_POLL_MS: "100" };
  // Several processes share a database only on PostgreSQL; SQLite has one process per data directory.
  servers.push(await startServer({ dataDir, env }));
  if (onPostgres) servers.push(await startServer({ dataDir, env }));
  const rows = await allRunsDone();
  // One row per task and period (two only when the start straddled a task's minute).
  for (const t of TASKS) {
    const keys = rows.filter((r) => (JSON.parse(r.payload) as { task: string }).task === t).map((r) => r.unique_key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length === 1 || keys.length === 2).toBe(true);
  }
  const output = servers.map((s) => s.output()).join("\n");
  expect(output).not.toContain("scheduler: queueing periodic work failed");
  expect(output).not.toContain("job failed");

  // A restart within the period: the runs are done already, nothing is queued twice.
  const before = rows.map((r) => r.unique_key);
  await servers.pop()!.stop();
  servers.push(await startServer({ dataDir, env }));
  await Bun.sleep(3000); // its scheduler ticks once the runner and the dispatcher started
  const after = (await allRunsDone()).map((r) => r.unique_key);
  // Only a task whose minute passed meanwhile may have a new period's run.
  expect(after.slice(0, before.length)).toEqual(before);
  expect(after.length - before.length).toBeLessThanOrEqual(1);
}, 180_000);
