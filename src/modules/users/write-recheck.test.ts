/**
 * Writes re-check the caller inside their transaction (security review finding 13): a session
 * demoted, or a key revoked, while its request waits for the write lock commits nothing —
 * `PATCH workspace/`, `DELETE invites/{uuid}/`, `PATCH …/insights/`. A real server process, so
 * the test can hold the write lock from another connection (SQLite's `BEGIN IMMEDIATE`, or on
 * PostgreSQL the advisory lock every write transaction takes), see the request wait for it, and
 * only then commit the change (test/helpers/write-lock.ts). The request was authorised before
 * the change, so only the in-transaction re-check can refuse it: without it these writes commit.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli, startServer, type RunningServer } from "../../../test/helpers/process.ts";
import { seedResponses } from "../../../test/helpers/seed-responses.ts";
import { openTestDatabase } from "../../../test/helpers/db.ts";
import { raceWithWriteLock } from "../../../test/helpers/write-lock.ts";
import { revokeToken } from "../tokens/service.ts";
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

/** Holds the write lock until the request is seen waiting for it, then commits `change` (test/helpers/write-lock.ts). */
const whileLocked = (request: () => Promise<Response>, change: (trx: Transaction<Schema>) => Promise<unknown>) =>
  raceWithWriteLock(db, server.proc.pid, request, change);

const setRole = (role: "owner" | "viewer") => (q: Db | Transaction<Schema>) =>
  q
    .updateTable("memberships")
    .set({ role })
    .where("user_uuid", "=", (eb) => eb.selectFrom("users").select("uuid").where("email", "=", "owner@example.com"))
    .execute();

test("PATCH workspace/ and DELETE invites/ by a session demoted while they wait for the write lock commit nothing and answer 401", async () => {
  const invite = await (await send("POST", "invites/", { email: "pending@example.com", role: "member" }, "session")).json();
  expect(invite.uuid).toBeDefined();
  const rename = await whileLocked(() => send("PATCH", "workspace/", { name: "Renamed by a viewer" }, "session"), setRole("viewer"));
  // 401 UNAUTHENTICATED, not the viewer's 403: the request was authorised as an owner before the
  // demotion committed (it was seen waiting for the lock), so only the re-check inside its write
  // transaction can refuse it.
  expect([rename.status, (await rename.json()).code]).toEqual([401, "UNAUTHENTICATED"]);
  expect(await db.selectFrom("workspaces").select("name").execute()).toEqual([{ name: "Recheck" }]);
  await setRole("owner")(db);
  const withdraw = await whileLocked(() => send("DELETE", `invites/${invite.uuid}/`, undefined, "session"), setRole("viewer"));
  expect([withdraw.status, (await withdraw.json()).code]).toEqual([401, "UNAUTHENTICATED"]);
  expect(await db.selectFrom("one_time_tokens").select("uuid").where("uuid", "=", invite.uuid).execute()).toHaveLength(1);
});

test("PATCH …/insights/ with a key revoked while it waits for the write lock stores no correction", async () => {
  // Set up with the session: a key's use is written 0.5 s later in a write transaction of its
  // own, which would wait for the test's lock in place of the request under test.
  await setRole("owner")(db);
  const link = await (await send("POST", "links/", { name: "Insights", questions: [{ prompt: "Comment", type: "text" }] }, "session")).json();
  const key = await (await send("POST", "tokens/", { name: "Corrector", scopes: ["responses:write"] }, "session")).json();
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
    (trx) => revokeToken(trx, ws.workspace_uuid, key.uuid),
  );
  expect([res.status, (await res.json()).code]).toEqual([401, "UNAUTHENTICATED"]);
  expect(await db.selectFrom("insight_corrections").select("uuid").execute()).toEqual([]);
  // The server accepted the key before the revocation committed: it recorded the key's use
  // (written within 0.5 s), which authentication does only for a key it accepts.
  await expectKeyUsed(key.uuid);
});

/** Waits (up to 10 s) until the key's `last_used_at` is written: the server accepted the key once. */
async function expectKeyUsed(uuid: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let row = await db.selectFrom("api_tokens").select("last_used_at").where("uuid", "=", uuid).executeTakeFirstOrThrow();
  while (row.last_used_at === null && Date.now() < deadline) {
    await Bun.sleep(50);
    row = await db.selectFrom("api_tokens").select("last_used_at").where("uuid", "=", uuid).executeTakeFirstOrThrow();
  }
  expect(row.last_used_at).not.toBeNull();
}
