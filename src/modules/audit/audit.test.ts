/**
 * The audit log (DESIGN §10; console contract): actions of keys and users are recorded centrally
 * with actor, target and client address; `GET audit/` pages newest first with filters; only
 * `audit:read` reads it, and only its own workspace.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { PASSWORD, addUser, signIn } from "../../../test/helpers/console-session.ts";
import { pruneAudit, UNOWNED_AUDIT_MAX_ROWS } from "./housekeeping.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
  await addUser(api, "owner@example.com", "owner");
  await addUser(api, "viewer@example.com", "viewer");
});
afterAll(() => api.close());

test("key and session actions are recorded with actor and target; failures are not", async () => {
  const link = await api.call("POST", "/api/v1/links/", { body: { name: "Audited link" } });
  await api.call("PATCH", `/api/v1/links/${link.json.uuid}/`, { body: { name: "Audited link 2" } });
  await api.call("DELETE", `/api/v1/links/${link.json.uuid}/`);
  const owner = await signIn(api, "owner@example.com");
  const token = await owner.call("POST", "/api/v1/tokens/", { body: { name: "CI" } });
  await owner.call("DELETE", `/api/v1/tokens/${token.json.uuid}/`);
  await owner.call("PATCH", "/api/v1/workspace/", { body: { name: "Audited workspace" } });
  await owner.call("POST", "/api/v1/invites/", { body: { email: "new@example.com", role: "member" } });
  const viewer = await signIn(api, "viewer@example.com");
  expect((await viewer.call("POST", "/api/v1/links/", { body: { name: "refused" } })).status).toBe(403);

  const log = await owner.call("GET", "/api/v1/audit/?page_size=100");
  expect(log.status).toBe(200);
  const actions = log.json.results.map((e: { action: string }) => e.action);
  expect(actions).toEqual([
    "login.succeeded",
    "member.invited",
    "workspace.updated",
    "token.revoked",
    "token.created",
    "login.succeeded",
    "link.deleted",
    "link.updated",
    "link.created",
  ]);
  const byAction = (a: string) => log.json.results.find((e: { action: string }) => e.action === a);
  expect(byAction("link.created")).toMatchObject({
    actor: { type: "key", uuid: api.ws.token_uuid, name: "Default key" },
    target: { type: "link", uuid: link.json.uuid, label: "Audited link" },
  });
  expect(byAction("token.created")).toMatchObject({
    actor: { type: "user", uuid: owner.reply.json.user.uuid, name: "owner" },
    target: { type: "token", uuid: token.json.uuid, label: "CI" },
  });
  expect(byAction("workspace.updated").target).toMatchObject({ type: "workspace", label: "Audited workspace" });
  expect(Object.keys(log.json.results[0]).sort()).toEqual(["action", "actor", "client_address", "target", "time", "uuid"]);
});

test("filters: exact action, prefix, actor, since/until; pagination; audit:read only; own workspace only", async () => {
  const owner = await signIn(api, "owner@example.com");
  const exact = await owner.call("GET", "/api/v1/audit/?action=link.created");
  expect(exact.json.results.every((e: { action: string }) => e.action === "link.created")).toBe(true);
  const prefix = await owner.call("GET", "/api/v1/audit/?action=link.");
  expect(new Set(prefix.json.results.map((e: { action: string }) => e.action))).toEqual(new Set(["link.created", "link.updated", "link.deleted"]));
  const byKey = await owner.call("GET", `/api/v1/audit/?actor=${api.ws.token_uuid}`);
  expect(byKey.json.count).toBe(3);
  expect((await owner.call("GET", "/api/v1/audit/?actor=Default%20key")).json.count).toBe(3);
  const all = (await owner.call("GET", "/api/v1/audit/?page_size=100")).json.results;
  const middle = all[3].time;
  const since = await owner.call("GET", `/api/v1/audit/?since=${middle}&page_size=100`);
  expect(since.json.count).toBe(4);
  const until = await owner.call("GET", `/api/v1/audit/?until=${middle}&page_size=100`);
  expect(until.json.count).toBe(all.length - 4);
  expect((await owner.call("GET", "/api/v1/audit/?since=yesterday")).status).toBe(400);
  expect((await owner.call("GET", "/api/v1/audit/?since=&until=&action=&actor=&page_size=100")).json.count).toBe(all.length);
  const page = await owner.call("GET", "/api/v1/audit/?page_size=2&page=2");
  expect(page.json.results.map((e: { uuid: string }) => e.uuid)).toEqual(all.slice(2, 4).map((e: { uuid: string }) => e.uuid));
  expect(page.json.next).toContain("page=3");

  const viewer = await signIn(api, "viewer@example.com");
  expect((await viewer.call("GET", "/api/v1/audit/")).json.code).toBe("INSUFFICIENT_SCOPE");
  expect((await api.call("GET", "/api/v1/audit/")).json.code).toBe("INSUFFICIENT_SCOPE"); // default keys lack audit:read
  const other = await api.newWorkspace("Elsewhere");
  await addUser(api, "else@example.com", "owner", { workspaceUuid: other.workspace_uuid });
  const elsewhere = await signIn(api, "else@example.com");
  const theirs = await elsewhere.call("GET", "/api/v1/audit/?page_size=100");
  expect(theirs.json.results.map((e: { action: string }) => e.action)).toEqual(["login.succeeded"]);
});

test("a failed sign-in is recorded as login.failed with the client's address (real socket)", async () => {
  const t = await createTestApi({ EARSHOT_LOG_LEVEL: "silent" });
  const server = t.app.listen({ port: 0, hostname: "127.0.0.1" });
  try {
    await addUser(t, "watched@example.com", "owner");
    const url = `http://127.0.0.1:${server.server!.port}`;
    const r = await fetch(`${url}/api/v1/auth/login/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "watched@example.com", password: "guess guess guess" }),
    });
    expect(r.status).toBe(401);
    const ok = await fetch(`${url}/api/v1/auth/login/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "watched@example.com", password: PASSWORD }),
    });
    const cookie = /earshot_session=([^;]+)/.exec(ok.headers.get("set-cookie")!)![1];
    const log = await (await fetch(`${url}/api/v1/audit/?action=login.`, { headers: { cookie: `earshot_session=${cookie}` } })).json();
    expect(log.results.map((e: { action: string }) => e.action)).toEqual(["login.succeeded", "login.failed"]);
    expect(log.results[1]).toMatchObject({ client_address: "127.0.0.1", target: { type: "user", label: "watched@example.com" } });
    expect(JSON.stringify(log)).not.toContain("guess guess");
  } finally {
    await server.stop();
    await t.close();
  }
});

test("webhook actions are recorded: created, updated, secret rotated, deleted", async () => {
  const base = `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`;
  const hook = await api.call("POST", base, { body: { url: "https://hooks.example.com/earshot", events: ["response.submitted"] } });
  expect(hook.status).toBe(201);
  await api.call("PATCH", `${base}${hook.json.uuid}/`, { body: { enabled: false } });
  await api.call("POST", `${base}${hook.json.uuid}/rotate-secret/`);
  await api.call("DELETE", `${base}${hook.json.uuid}/`);
  const owner = await signIn(api, "owner@example.com");
  const log = await owner.call("GET", "/api/v1/audit/?action=webhook.");
  expect(log.json.results.map((e: { action: string }) => e.action)).toEqual([
    "webhook.deleted",
    "webhook.secret_rotated",
    "webhook.updated",
    "webhook.created",
  ]);
  expect(log.json.results[3].target).toEqual({ type: "webhook", uuid: hook.json.uuid, label: "https://hooks.example.com/earshot" });
  expect(JSON.stringify(log.json)).not.toContain(hook.json.secret);
});

test("audit rows outside any workspace (unknown-email sign-ins) are pruned: past 30 days, and beyond the newest 10 000", async () => {
  const t = await createTestApi();
  try {
    const row = (i: number, time: string, workspace: string | null) => ({
      uuid: crypto.randomUUID(),
      workspace_uuid: workspace,
      time,
      actor_type: "system" as const,
      actor_uuid: null,
      actor_name: "system",
      action: "login.failed",
      target_type: "user",
      target_uuid: null,
      target_label: `guess${i}@example.com`,
      client_address: null,
    });
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    const recent = (i: number) => new Date(Date.now() - 1000 - i).toISOString();
    await t.db
      .insertInto("audit_log")
      .values([row(0, old, null), row(1, old, t.ws.workspace_uuid)])
      .execute();
    for (let at = 0; at < UNOWNED_AUDIT_MAX_ROWS + 50; at += 1000) {
      await t.db
        .insertInto("audit_log")
        .values(Array.from({ length: Math.min(1000, UNOWNED_AUDIT_MAX_ROWS + 50 - at) }, (_, k) => row(at + k, recent(at + k), null)))
        .execute();
    }
    expect(await pruneAudit(t.db)).toBe(51);
    const left = await t.db.selectFrom("audit_log").select(["workspace_uuid", "time"]).where("action", "=", "login.failed").execute();
    expect(left.filter((r) => r.workspace_uuid === null)).toHaveLength(UNOWNED_AUDIT_MAX_ROWS);
    expect(left.filter((r) => r.workspace_uuid === t.ws.workspace_uuid)).toHaveLength(1); // a workspace's record stays
  } finally {
    await t.close();
  }
});
