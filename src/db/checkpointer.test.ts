/**
 * `earshot serve` on SQLite checkpoints the WAL from its worker thread (db/checkpointer.ts), not
 * only when the WAL passes 1,000 pages inside some request's commit: an answer acknowledged by a
 * real server reaches the database file itself (not just the WAL) within a moment, with no other
 * write after it. SQLite's own automatic checkpoint would leave these few pages in the WAL.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { onPostgres } from "../../test/helpers/db.ts";
import { runCli, startServer, type RunningServer } from "../../test/helpers/process.ts";

let dataDir: string;
let server: RunningServer;

beforeAll(async () => {
  if (onPostgres) return;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-checkpoint-"));
  server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1" } });
});
afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test.skipIf(onPostgres)(
  "an acknowledged answer reaches the SQLite database file (not only the WAL) within seconds (SQLite only: PostgreSQL has no WAL file of ours)",
  async () => {
    const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Checkpoint", "--plan", "enterprise", "--json"], { dataDir })).stdout);
    const created = await fetch(`${server.baseUrl}/api/v1/links/`, {
      method: "POST",
      headers: { authorization: `Bearer ${ws.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Checkpoint", questions: [{ prompt: "Anything else?", type: "text" }] }),
    });
    const link = await created.json();
    const base = `${server.baseUrl}/api/v1/intake/${ws.workspace_slug}/${link.slug}/`;
    const json = { "content-type": "application/json" };
    const session = await (await fetch(`${base}sessions/`, { method: "POST", headers: json, body: "{}" })).json();
    const marker = `checkpointed-${crypto.randomUUID()}`;
    const put = await fetch(`${base}sessions/${session.session_id}/answers/${link.questions[0].uuid}/`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify({ value: marker }),
    });
    expect(put.status).toBe(200);
    const file = path.join(dataDir, "earshot.db");
    const inFile = () => fs.readFileSync(file).includes(Buffer.from(marker));
    for (const deadline = Date.now() + 5000; !inFile() && Date.now() < deadline; ) await Bun.sleep(100);
    expect(inFile()).toBe(true);
    // Still readable through SQLite, answer and all, by the server.
    const read = await fetch(`${base}sessions/${session.session_id}/`);
    expect(JSON.stringify(await read.json())).toContain(marker);
  },
);
