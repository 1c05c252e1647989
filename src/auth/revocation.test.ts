/**
 * Revocation is immediate, also for requests already in flight (spec: Authentication 6;
 * DESIGN §5): a write must not commit and data must not be returned after the revocation commits.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { revokeToken } from "../modules/tokens/service.ts";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { seedResponses } from "../../test/helpers/seed-responses.ts";
import { runCli, startServer, type RunningServer } from "../../test/helpers/process.ts";
import { openTestDatabase } from "../../test/helpers/db.ts";
import { raceWithWriteLock } from "../../test/helpers/write-lock.ts";

let dataDir: string;
let server: RunningServer;
let ws: { workspace_uuid: string; workspace_slug: string; api_key: string };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-revoke-"));
  const created = await runCli(["workspace", "create", "--name", "Revocation", "--json"], { dataDir });
  ws = JSON.parse(created.stdout);
  // Nothing but the request under test writes while the test holds the write lock.
  server = await startServer({ dataDir, env: { EARSHOT_OUTBOX_POLL_MS: "600000", EARSHOT_JOBS_PAUSED: "1" } });
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("a write waiting for the write lock when its key is revoked does not commit and answers 401", async () => {
  const api = (p: string, key: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}/api/v1/${p}`, { ...init, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers } });
  // Made by the CLI, not the API: a key's use is written 0.5 s later in a write transaction of its
  // own, which would wait for the test's lock in place of the request under test.
  const second = JSON.parse((await runCli(["token", "create", "--workspace", ws.workspace_uuid, "--name", "Doomed", "--json"], { dataDir })).stdout);

  // Hold the write lock, see the request (authenticated: reads are not blocked) wait for it inside
  // the server, then commit the revocation (test/helpers/write-lock.ts): only the re-check inside
  // the request's write transaction can refuse it now.
  const db = await openTestDatabase(dataDir);
  try {
    const res = await raceWithWriteLock(
      db,
      server.proc.pid,
      () => api("links/", second.key, { method: "POST", body: JSON.stringify({ name: "Must not exist" }) }),
      (trx) => revokeToken(trx, ws.workspace_uuid, second.uuid),
    );
    expect([res.status, (await res.json()).code]).toEqual([401, "UNAUTHENTICATED"]);
    expect(await db.selectFrom("links").select("name").where("name", "=", "Must not exist").execute()).toEqual([]);
    // The server had accepted the key (it records the use of a key it accepts, written within 0.5 s).
    const deadline = Date.now() + 10_000;
    const lastUsed = () => db.selectFrom("api_tokens").select("last_used_at").where("uuid", "=", second.uuid).executeTakeFirstOrThrow();
    while ((await lastUsed()).last_used_at === null && Date.now() < deadline) await Bun.sleep(50);
    expect((await lastUsed()).last_used_at).not.toBeNull();
  } finally {
    await db.destroy();
  }
});

let mem: TestApi;
test("a streaming export stops returning data once its key is revoked mid-stream", async () => {
  mem = await createTestApi();
  try {
    const link = (await mem.call("POST", "/api/v1/links/", { body: { name: "Big", questions: [{ prompt: "Comment", type: "text" }] } })).json;
    // Written directly: the intake's anonymous limits would refuse 450 sessions from one peer.
    await seedResponses(mem.db, mem.ws.workspace_uuid, link, 450, (i) => `answer ${i}`);
    const reader = (await mem.call("POST", "/api/v1/tokens/", { body: { name: "Exporter", scopes: ["responses:read"] } })).json;
    const res = await mem.app.handle(
      new Request(`http://localhost/api/v1/links/${link.uuid}/responses/export/?format=jsonl`, { headers: { authorization: `Bearer ${reader.key}` } }),
    );
    expect(res.status).toBe(200);
    const stream = res.body!.getReader();
    const first = await stream.read();
    const firstRows = new TextDecoder().decode(first.value).trim().split("\n").length;
    // One chunk (about 64 Ki characters, DESIGN §5 "stops at its next batch") per read.
    expect(firstRows).toBeGreaterThan(0);
    expect(firstRows).toBeLessThan(450);
    expect((await mem.call("DELETE", `/api/v1/tokens/${reader.uuid}/`)).status).toBe(200);
    let received = firstRows;
    let failed = false;
    try {
      for (let r = await stream.read(); !r.done; r = await stream.read()) received += new TextDecoder().decode(r.value).trim().split("\n").length;
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    // The next chunk is produced as soon as the first has been taken (responses/export.ts), so it
    // may be ready before the revocation commits and still arrive; nothing produced after it does.
    expect(received).toBeLessThanOrEqual(2 * firstRows);
  } finally {
    await mem.close();
  }
});
