/**
 * WAL checkpoints from a worker thread (db/checkpointer.ts), on a real SQLite file: an idle
 * database never starts the worker; once the WAL passes the threshold, committed pages reach the
 * database file itself (not only the WAL) within moments — which SQLite's own automatic checkpoint
 * (at 1,000 pages) would not do for them. And `earshot serve` runs it.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "./client.ts";
import { startCheckpointer } from "./checkpointer.ts";
import { sqliteHandleOf } from "./direct.ts";
import { createLogger } from "../logger.ts";
import { onPostgres } from "../../test/helpers/db.ts";
import { runCli, startServer, type RunningServer } from "../../test/helpers/process.ts";

const dirs: string[] = [];
let server: RunningServer | null = null;
afterAll(async () => {
  await server?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-checkpoint-"));
  dirs.push(d);
  return d;
};
// Read by another process: opening and closing a database file in this one would drop this
// process's SQLite locks on it (sqlite.org/howtocorrupt.html §2.2).
const inFile = (file: string, marker: string) => Bun.spawnSync(["grep", "-q", "-a", "-F", marker, file]).exitCode === 0;
async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const deadline = Date.now() + ms; !check() && Date.now() < deadline; ) await Bun.sleep(50);
  return check();
}

test.skipIf(onPostgres)("the worker starts once the WAL passes the threshold, then copies commits into the file (SQLite only: the WAL file)", async () => {
  const file = path.join(tempDir(), "earshot.db");
  const db = openDatabase(file);
  await db.schema.createTable("notes").addColumn("body", "text").execute();
  const checkpointer = startCheckpointer(db, file, { log: createLogger("silent"), everyMs: 50, startAtFrames: 64 });
  try {
    const first = `first-${crypto.randomUUID()}`;
    await db
      .insertInto("notes" as never)
      .values({ body: first } as never)
      .execute();
    await Bun.sleep(300);
    // Idle: no worker, and the commit is still only in the WAL.
    expect(checkpointer.started).toBe(false);
    expect(inFile(file, first)).toBe(false);
    const filler = "x".repeat(16 * 1024);
    for (let i = 0; i < 24; i++)
      await db
        .insertInto("notes" as never)
        .values({ body: `${i} ${filler}` } as never)
        .execute();
    const last = `last-${crypto.randomUUID()}`;
    await db
      .insertInto("notes" as never)
      .values({ body: last } as never)
      .execute();
    expect(await until(() => checkpointer.started && inFile(file, first) && inFile(file, last))).toBe(true);
  } finally {
    await checkpointer.stop();
    await db.destroy();
  }
});

test.skipIf(onPostgres)(
  "earshot serve checkpoints from its worker: answers reach the database file once respondents write (SQLite only: the WAL file)",
  async () => {
    const dataDir = tempDir();
    server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1", EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" } });
    const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Checkpoint", "--plan", "enterprise", "--json"], { dataDir })).stdout);
    const created = await fetch(`${server.baseUrl}/api/v1/links/`, {
      method: "POST",
      headers: { authorization: `Bearer ${ws.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Checkpoint", questions: [{ prompt: "Anything else?", type: "text" }] }),
    });
    const link = await created.json();
    const base = `${server.baseUrl}/api/v1/intake/${ws.workspace_slug}/${link.slug}/`;
    const json = { "content-type": "application/json" };
    const marker = `checkpointed-${crypto.randomUUID()}`;
    // Long answers until the WAL is past the worker's threshold (250 frames, ~1 MiB; the migrations'
    // pages were checkpointed at the start), far short of SQLite's own (1,000 frames, ~4 MiB):
    // without the worker, nothing would reach the file yet.
    const wal = path.join(dataDir, "earshot.db-wal");
    const walBytes = () => (fs.existsSync(wal) ? fs.statSync(wal).size : 0);
    for (let i = 0; i < 200 && walBytes() < 1.25 * 1024 * 1024; i++) {
      const session = await (await fetch(`${base}sessions/`, { method: "POST", headers: json, body: "{}" })).json();
      const words = Array.from({ length: 400 }, () => Math.random().toString(36).slice(2, 8)).join(" ");
      const put = await fetch(`${base}sessions/${session.session_id}/answers/${link.questions[0].uuid}/`, {
        method: "PUT",
        headers: json,
        body: JSON.stringify({ value: i === 0 ? `${marker} ${words}` : words }),
      });
      expect(put.status).toBe(200);
    }
    expect(walBytes()).toBeLessThan(3 * 1024 * 1024);
    expect(await until(() => inFile(path.join(dataDir, "earshot.db"), marker))).toBe(true);
  },
);

test.skipIf(onPostgres)("a worker that cannot open the file gives SQLite its own checkpoints back and stops at once (SQLite only: the WAL file)", async () => {
  const dir = tempDir();
  const db = openDatabase(path.join(dir, "earshot.db"));
  // The checkpointer is pointed at a "database" that is a directory, beside a WAL past the threshold.
  const bogus = path.join(dir, "not-a-database");
  fs.mkdirSync(bogus);
  fs.writeFileSync(`${bogus}-wal`, Buffer.alloc(2 * 1024 * 1024));
  const checkpointer = startCheckpointer(db, bogus, { log: createLogger("silent"), everyMs: 50 });
  const autoCheckpoint = () => Number(Object.values(sqliteHandleOf(db)!.query("PRAGMA wal_autocheckpoint").get() as object)[0]);
  try {
    await Bun.sleep(500);
    expect(checkpointer.started).toBe(false);
    expect(autoCheckpoint()).toBe(1000);
    const stopped = await Promise.race([checkpointer.stop().then(() => "stopped"), Bun.sleep(1500).then(() => "hung")]);
    expect(stopped).toBe("stopped");
  } finally {
    await db.destroy();
  }
});
