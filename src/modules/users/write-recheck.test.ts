/**
 * Writes re-check the caller inside their transaction (security review finding 13): a session
 * demoted, or a key revoked, while its request waits for the write lock commits nothing —
 * `PATCH workspace/`, `DELETE invites/{uuid}/`, `PATCH …/insights/`. A real server process, so
 * the test can hold the write lock from another connection while the request waits: SQLite's
 * (`BEGIN IMMEDIATE`), or on PostgreSQL the advisory lock every write transaction takes
 * (src/db/postgres.ts) — a Kysely transaction on the test engine takes either.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli, startServer, type RunningServer } from "../../../test/helpers/process.ts";
import { seedResponses } from "../../../test/helpers/seed-responses.ts";
import { openTestDatabase } from "../../../test/helpers/db.ts";
import type { Transaction } from "kysely";
import type { Db } from "../../db/client.ts";
import type { Database as Schema } from "../../db/schema.ts";

const PASSWORD = "correct horse battery staple";
let dataDir: string;
let server: RunningServer;
let ws: { workspace_uuid: string; api_key: string };
let session: { cookie: string; csrf: string };
/** A second connection (pool) to the server's database. */
let db: Db;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-recheck-"));
  ws = JSON.parse((await runCli(["workspace", "create", "--name", "Recheck", "--json"], { dataDir })).stdout);
  for (const email of ["owner@example.com", "other-owner@example.com"]) {
    await runCli(["user", "create", "--email", email, "--role", "owner", "--password-stdin"], { dataDir, stdin: PASSWORD });
  }
  // Nothing else writes meanwhile (the outbox poll and the jobs would wait on the lock too and
  // hold up the request before it is authenticated).
  server = await startServer({ dataDir, env: { EARSHOT_OUTBOX_POLL_MS: "600000", EARSHOT_JOBS_PAUSED: "1" } });
  const login = await fetch(`${server.baseUrl}/api/v1/auth/login/`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.baseUrl },
    body: JSON.stringify({ email: "owner@example.com", password: PASSWORD }),
  });
  session = { cookie: /earshot_session=([^;]+)/.exec(login.headers.get("set-cookie")!)![1]!, csrf: (await login.json()).csrf_token };
  db = await openTestDatabase(dataDir);
});
afterAll(async () => {
  await db?.destroy();
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const send = (method: string, p: string, body: unknown, auth: "session" | string) =>
  fetch(`${server.baseUrl}/api/v1/${p}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(auth === "session"
        ? { cookie: `earshot_session=${session.cookie}`, "x-csrf-token": session.csrf, origin: server.baseUrl }
        : { authorization: `Bearer ${auth}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Sends the request while another connection holds the write lock, runs `change` there, commits. */
async function whileLocked(request: () => Promise<Response>, change: (trx: Transaction<Schema>) => Promise<unknown>): Promise<Response> {
  let inFlight: Promise<Response> | null = null;
  await db.transaction().execute(async (trx) => {
    // The lock is held from the transaction's begin (SQLite: BEGIN IMMEDIATE; PostgreSQL: the
    // advisory lock).
    inFlight = request();
    // Long enough for the server to authenticate (reads are not blocked) and reach its write
    // transaction, which waits for the lock (busy_timeout 5 s on SQLite), even on a loaded machine.
    await Bun.sleep(3_000);
    await change(trx);
  });
  return inFlight!;
}

const setRole = (role: "owner" | "viewer") => (q: Db | Transaction<Schema>) =>
  q
    .updateTable("memberships")
    .set({ role })
    .where("user_uuid", "=", (eb) => eb.selectFrom("users").select("uuid").where("email", "=", "owner@example.com"))
    .execute();

test("PATCH workspace/ and DELETE invites/ by a session demoted meanwhile commit nothing and answer 401", async () => {
  const invite = await (await send("POST", "invites/", { email: "pending@example.com", role: "member" }, "session")).json();
  expect(invite.uuid).toBeDefined();
  const rename = await whileLocked(() => send("PATCH", "workspace/", { name: "Renamed by a viewer" }, "session"), setRole("viewer"));
  // 401: the re-check inside the write transaction saw the demotion. On a machine so loaded that
  // the request was authenticated only after the change committed, it is refused earlier, 403
  // for the viewer's role; either way nothing is written (the assertions below).
  expect([
    [401, "UNAUTHENTICATED"],
    [403, "INSUFFICIENT_SCOPE"],
  ]).toContainEqual([rename.status, (await rename.json()).code]);
  expect(await db.selectFrom("workspaces").select("name").execute()).toEqual([{ name: "Recheck" }]);
  await setRole("owner")(db);
  const withdraw = await whileLocked(() => send("DELETE", `invites/${invite.uuid}/`, undefined, "session"), setRole("viewer"));
  expect([401, 403]).toContain(withdraw.status);
  expect(await db.selectFrom("one_time_tokens").select("uuid").where("uuid", "=", invite.uuid).execute()).toHaveLength(1);
});

test("PATCH …/insights/ with a key revoked meanwhile stores no correction", async () => {
  const link = await (await send("POST", "links/", { name: "Insights", questions: [{ prompt: "Comment", type: "text" }] }, ws.api_key)).json();
  const key = await (await send("POST", "tokens/", { name: "Corrector", scopes: ["responses:write"] }, ws.api_key)).json();
  const [responseUuid] = await seedResponses(db, ws.workspace_uuid, { uuid: link.uuid, questions: link.questions }, 1, () => "Slow checkout");
  const insights = { sentiment: "negative", sentiment_score: -0.8, actionable: true, key_topics: ["checkout"], summary: "Slow checkout" };
  await db
    .updateTable("answers")
    .set({ ai_insights: JSON.stringify(insights) })
    .where("response_uuid", "=", responseUuid!)
    .execute();
  const answer = await db.selectFrom("answers").select("uuid").where("response_uuid", "=", responseUuid!).executeTakeFirstOrThrow();
  const res = await whileLocked(
    () => send("PATCH", `responses/${responseUuid}/answers/${answer.uuid}/insights/`, { sentiment: "positive" }, key.key),
    (trx) => trx.updateTable("api_tokens").set({ revoked_at: new Date().toISOString() }).where("uuid", "=", key.uuid).execute(),
  );
  expect(res.status).toBe(401);
  expect(await db.selectFrom("insight_corrections").select("uuid").execute()).toEqual([]);
});
