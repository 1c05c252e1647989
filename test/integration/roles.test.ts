/**
 * `earshot serve --role all|api|worker` (DESIGN §11; docs/operations.md "More than one machine"):
 * an `api` node answers the API and queues work but runs no job or delivery; a `worker` node on the
 * same database runs them and answers nothing over HTTP but `/healthz` (404 problem+json
 * elsewhere). Real processes on one database: PostgreSQL when `EARSHOT_TEST_DATABASE_URL` is set,
 * else one SQLite data directory shared by the two processes of one machine.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeSpeechWav } from "../helpers/audio.ts";
import { dropTestDatabase, openTestDatabase } from "../helpers/db.ts";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";
import { waitFor } from "../helpers/processing.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-roles-"));
const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await dropTestDatabase(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("an api node queues jobs without running them; a worker node on the same database runs them and serves only /healthz", async () => {
  const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Roles", "--plan", "pro", "--json"], { dataDir })).stdout);
  const fast = { EARSHOT_JOB_POLL_MS: "100", EARSHOT_OUTBOX_POLL_MS: "100" };
  const api = await startServer({ dataDir, env: { ...fast, EARSHOT_ROLE: "api" } });
  servers.push(api);
  const call = async (node: RunningServer, method: string, p: string, body?: unknown, raw?: Uint8Array) => {
    const res = await fetch(node.baseUrl + p, {
      method,
      headers: { authorization: `Bearer ${ws.api_key}`, "content-type": raw ? "audio/wav" : "application/json" },
      body: raw ? (raw as unknown as BodyInit) : body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, type: res.headers.get("content-type"), json: (await res.json()) as any };
  };
  const link = (await call(api, "POST", "/api/v1/links/", { name: "Roles", questions: [{ prompt: "Say something", type: "voice" }] })).json;
  const base = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
  const session = (await call(api, "POST", base, {})).json;
  const wav = new Uint8Array(fs.readFileSync(await makeSpeechWav("hello there", path.join(dataDir, "a.wav"), 0.1)));
  expect((await call(api, "POST", `${base}${session.session_id}/answers/${link.questions[0].uuid}/audio/`, undefined, wav)).status).toBe(200);
  expect((await call(api, "POST", `${base}${session.session_id}/submit/`, {})).status).toBe(200);

  const db = await openTestDatabase(dataDir);
  try {
    // The answer's jobs (a worker also queues and runs the periodic housekeeping runs, src/periodic.ts).
    const jobStates = async () => (await db.selectFrom("jobs").select("state").where("kind", "!=", "periodic").execute()).map((j) => j.state);
    // Twenty poll intervals of an `all` node: an api node never claims.
    await Bun.sleep(2000);
    expect(await jobStates()).toEqual(["queued"]);

    const worker = await startServer({ dataDir, env: { ...fast, EARSHOT_ROLE: "worker" } });
    servers.push(worker);
    await waitFor(
      async () => {
        const states = await jobStates();
        return states.length === 2 && states.every((s) => s === "done"); // transcribe, then analyse
      },
      60_000,
      "the worker runs the jobs",
    );
    const answer = (await call(api, "GET", `/api/v1/responses/${session.response_uuid}/`)).json.answers[0];
    expect(answer).toMatchObject({ transcription_status: "completed", transcription: "This is a fixture transcript." });

    // The worker serves only /healthz.
    const health = await fetch(`${worker.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    const refused = await call(worker, "GET", "/api/v1/links/");
    expect([refused.status, refused.type, refused.json.code]).toEqual([404, "application/problem+json", "NOT_FOUND"]);
    expect(refused.json.detail).toContain("--role worker");
  } finally {
    await db.destroy();
  }
}, 120_000);

test("an unknown role is refused before anything starts", async () => {
  const r = await runCli(["serve", "--role", "gpu"], { dataDir });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("all, api, worker");
});
