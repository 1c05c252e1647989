/**
 * Writes re-check the caller inside their transaction (security review finding 13): a session
 * demoted, or a key revoked, while its request waits for the write lock commits nothing —
 * `PATCH workspace/`, `DELETE invites/{uuid}/`, `PATCH …/insights/`. A real server process, so
 * the test can hold SQLite's write lock from another connection while the request waits.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli, startServer, type RunningServer } from "../../../test/helpers/process.ts";
import { seedResponses } from "../../../test/helpers/seed-responses.ts";
import { Kysely, SqliteDialect } from "kysely";
import type { Database as Schema } from "../../db/schema.ts";

const PASSWORD = "correct horse battery staple";
let dataDir: string;
let server: RunningServer;
let ws: { workspace_uuid: string; api_key: string };
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-recheck-"));
  ws = JSON.parse((await runCli(["workspace", "create", "--name", "Recheck", "--json"], { dataDir })).stdout);
  for (const email of ["owner@example.com", "other-owner@example.com"]) {
    await runCli(["user", "create", "--email", email, "--role", "owner", "--password-stdin"], { dataDir, stdin: PASSWORD });
  }
  // Nothing else writes meanwhile (the outbox poll and the jobs would wait on the lock too and
  // hold up the request before it is authenticated).
  server = await startServer({ dataDir, env: { EARSHOT_OUTBOX_POLL_MS: "600000", EARSHOT_JOBS_PAUSED: "1" } });
  const login = await fetch(`${server.baseUrl}/api/v1/auth/login/`, { method: "POST", headers: { "content-type": "application/json", origin: server.baseUrl }, body: JSON.stringify({ email: "owner@example.com", password: PASSWORD }) });
  session = { cookie: /earshot_session=([^;]+)/.exec(login.headers.get("set-cookie")!)![1]!, csrf: (await login.json()).csrf_token };
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const send = (method: string, p: string, body: unknown, auth: "session" | string) =>
  fetch(`${server.baseUrl}/api/v1/${p}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(auth === "session" ? { cookie: `earshot_session=${session.cookie}`, "x-csrf-token": session.csrf, origin: server.baseUrl } : { authorization: `Bearer ${auth}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Sends the request while another connection holds the write lock, runs `change` there, commits. */
async function whileLocked(request: () => Promise<Response>, change: (sqlite: Database) => void): Promise<Response> {
  const sqlite = new Database(path.join(dataDir, "earshot.db"));
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("BEGIN IMMEDIATE");
  const inFlight = request();
  // Long enough for the server to authenticate (reads are not blocked) and reach its write
  // transaction, which waits for the lock (its busy_timeout is 5 s), even on a loaded machine.
  await Bun.sleep(1_500);
  change(sqlite);
  sqlite.exec("COMMIT");
  const res = await inFlight;
  sqlite.close();
  return res;
}

const setRole = (role: string) => (sqlite: Database) =>
  sqlite.prepare("UPDATE memberships SET role = ? WHERE user_uuid = (SELECT uuid FROM users WHERE email = 'owner@example.com')").run(role);

test("PATCH workspace/ and DELETE invites/ by a session demoted meanwhile commit nothing and answer 401", async () => {
  const invite = await (await send("POST", "invites/", { email: "pending@example.com", role: "member" }, "session")).json();
  expect(invite.uuid).toBeDefined();
  const rename = await whileLocked(() => send("PATCH", "workspace/", { name: "Renamed by a viewer" }, "session"), setRole("viewer"));
  expect([rename.status, (await rename.json()).code]).toEqual([401, "UNAUTHENTICATED"]);
  const db = new Database(path.join(dataDir, "earshot.db"));
  expect(db.query("SELECT name FROM workspaces").get()).toEqual({ name: "Recheck" });
  setRole("owner")(db);
  const withdraw = await whileLocked(() => send("DELETE", `invites/${invite.uuid}/`, undefined, "session"), setRole("viewer"));
  expect(withdraw.status).toBe(401);
  expect(db.query("SELECT count(*) AS n FROM one_time_tokens WHERE uuid = ?").get(invite.uuid)).toEqual({ n: 1 });
  db.close();
});

test("PATCH …/insights/ with a key revoked meanwhile stores no correction", async () => {
  const link = await (await send("POST", "links/", { name: "Insights", questions: [{ prompt: "Comment", type: "text" }] }, ws.api_key)).json();
  const key = await (await send("POST", "tokens/", { name: "Corrector", scopes: ["responses:write"] }, ws.api_key)).json();
  const sqlite = new Database(path.join(dataDir, "earshot.db"));
  const kysely = new Kysely<Schema>({ dialect: new SqliteDialect({ database: sqlite as never }) });
  const [responseUuid] = await seedResponses(kysely, ws.workspace_uuid, { uuid: link.uuid, questions: link.questions }, 1, () => "Slow checkout");
  const insights = { sentiment: "negative", sentiment_score: -0.8, actionable: true, key_topics: ["checkout"], summary: "Slow checkout" };
  sqlite.prepare("UPDATE answers SET ai_insights = ? WHERE response_uuid = ?").run(JSON.stringify(insights), responseUuid!);
  const answer = sqlite.query("SELECT uuid FROM answers WHERE response_uuid = ?").get(responseUuid!) as { uuid: string };
  sqlite.close();
  const res = await whileLocked(
    () => send("PATCH", `responses/${responseUuid}/answers/${answer.uuid}/insights/`, { sentiment: "positive" }, key.key),
    (db) => db.prepare("UPDATE api_tokens SET revoked_at = ? WHERE uuid = ?").run(new Date().toISOString(), key.uuid),
  );
  expect(res.status).toBe(401);
  const db = new Database(path.join(dataDir, "earshot.db"));
  expect(db.query("SELECT count(*) AS n FROM insight_corrections").get()).toEqual({ n: 0 });
  db.close();
});
