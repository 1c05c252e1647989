/**
 * Members, invites, setup tokens, the workspace switch and `PATCH workspace/` against the real app
 * (console contract; DESIGN §10).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BASE, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { PASSWORD, addUser, cookieOf, signIn } from "../../../test/helpers/console-session.ts";
import { isoAfter } from "../../clock.ts";
import { issueOneTimeToken } from "./accounts.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
  await addUser(api, "owner@example.com", "owner");
  await addUser(api, "admin@example.com", "admin");
});
afterAll(() => api.close());

const open = (method: string, path: string, body?: unknown) => api.call(method, path, { key: null, body, headers: { origin: BASE } });

test("setup token: creates the owner once; used, expired and unknown tokens answer 404", async () => {
  const t = await createTestApi();
  try {
    const { token } = await issueOneTimeToken(t.db, "setup", { workspaceUuid: t.ws.workspace_uuid });
    const body = { token, name: "First", email: "first@example.com", password: PASSWORD };
    const r = await t.call("POST", "/api/v1/auth/setup/", { key: null, body });
    expect(r.status).toBe(201);
    expect(cookieOf(r)).toBeTruthy();
    expect(r.json).toMatchObject({ role: "owner", current_workspace_uuid: t.ws.workspace_uuid });
    const twice = await t.call("POST", "/api/v1/auth/setup/", { key: null, body: { ...body, email: "second@example.com" } });
    expect([twice.status, twice.json.code]).toEqual([404, "NOT_FOUND"]);
    const expired = await issueOneTimeToken(t.db, "setup", { workspaceUuid: t.ws.workspace_uuid });
    await t.db
      .updateTable("one_time_tokens")
      .set({ expires_at: isoAfter(-1) })
      .where("uuid", "=", expired.uuid)
      .execute();
    expect((await t.call("POST", "/api/v1/auth/setup/", { key: null, body: { ...body, token: expired.token, email: "third@example.com" } })).status).toBe(404);
    expect((await t.call("POST", "/api/v1/auth/setup/", { key: null, body: { ...body, token: "made-up", email: "fourth@example.com" } })).status).toBe(404);
    // A reset token is not a setup token.
    const reset = await issueOneTimeToken(t.db, "password_reset", { userUuid: r.json.user.uuid });
    expect((await t.call("POST", "/api/v1/auth/setup/", { key: null, body: { ...body, token: reset.token, email: "fifth@example.com" } })).status).toBe(404);
    const users = await t.db.selectFrom("users").select("email").execute();
    expect(users.map((u) => u.email)).toEqual(["first@example.com"]);
  } finally {
    await t.close();
  }
});

test("invite flow: invite a viewer, read the invite, accept once, the viewer's writes are refused; withdrawn invites stop working", async () => {
  const owner = await signIn(api, "owner@example.com");
  const invite = await owner.call("POST", "/api/v1/invites/", { body: { email: "Vera@Example.com", role: "viewer" } });
  expect(invite.status).toBe(201);
  expect(invite.json.url).toMatch(/^http:\/\/localhost\/console\/invite\/\?token=[A-Za-z0-9_-]{43}$/);
  const token = new URL(invite.json.url).searchParams.get("token")!;
  const listed = await owner.call("GET", "/api/v1/invites/");
  expect(listed.json.results.map((i: { uuid: string }) => i.uuid)).toContain(invite.json.uuid);
  expect(JSON.stringify(listed.json)).not.toContain(token);

  const info = await api.call("GET", `/api/v1/auth/invites/${token}/`, { key: null });
  expect(info.json).toEqual({ email: "Vera@Example.com", workspace_name: "Test workspace", role: "viewer", expires_at: invite.json.expires_at });
  const noName = await open("POST", `/api/v1/auth/invites/${token}/accept/`, { password: PASSWORD });
  expect(noName.json.errors[0].pointer).toBe("/name");
  const accepted = await open("POST", `/api/v1/auth/invites/${token}/accept/`, { name: "Vera", password: PASSWORD });
  expect(accepted.status).toBe(201);
  expect(accepted.json).toMatchObject({ role: "viewer", scopes: ["links:read", "responses:read"] });
  expect((await open("POST", `/api/v1/auth/invites/${token}/accept/`, { name: "Vera", password: PASSWORD })).status).toBe(404);
  expect((await api.call("GET", `/api/v1/auth/invites/${token}/`, { key: null })).status).toBe(404);

  const viewer = await signIn(api, "vera@example.com");
  expect((await viewer.call("POST", "/api/v1/links/", { body: { name: "No" } })).json.code).toBe("INSUFFICIENT_SCOPE");

  const withdrawn = await owner.call("POST", "/api/v1/invites/", { body: { email: "late@example.com", role: "member" } });
  expect((await owner.call("DELETE", `/api/v1/invites/${withdrawn.json.uuid}/`)).status).toBe(200);
  const lateToken = new URL(withdrawn.json.url).searchParams.get("token")!;
  expect((await open("POST", `/api/v1/auth/invites/${lateToken}/accept/`, { name: "Late", password: PASSWORD })).status).toBe(404);
  expect((await owner.call("POST", "/api/v1/invites/", { body: { email: "vera@example.com", role: "member" } })).json.errors[0].pointer).toBe("/email");
});

test("an invite to an existing account joins with that account's password; the user switches workspaces", async () => {
  const other = await api.newWorkspace("Second");
  const otherOwner = await addUser(api, "boss2@example.com", "owner", { workspaceUuid: other.workspace_uuid });
  void otherOwner;
  const boss = await signIn(api, "boss2@example.com");
  const invite = await boss.call("POST", "/api/v1/invites/", { body: { email: "admin@example.com", role: "member" } });
  const token = new URL(invite.json.url).searchParams.get("token")!;
  const wrong = await open("POST", `/api/v1/auth/invites/${token}/accept/`, { password: "not the password" });
  expect([wrong.status, wrong.json.code]).toEqual([401, "INVALID_CREDENTIALS"]);
  const joined = await open("POST", `/api/v1/auth/invites/${token}/accept/`, { password: PASSWORD });
  expect(joined.status).toBe(201);
  expect(joined.json.current_workspace_uuid).toBe(other.workspace_uuid);
  expect(joined.json.memberships.map((m: { role: string }) => m.role).sort()).toEqual(["admin", "member"]);

  const s = await signIn(api, "admin@example.com");
  expect(s.reply.json.current_workspace_uuid).toBe(api.ws.workspace_uuid);
  const made = await s.call("POST", "/api/v1/links/", { body: { name: "In first" } });
  const switched = await s.call("POST", "/api/v1/auth/session/workspace/", { body: { workspace_uuid: other.workspace_uuid } });
  expect([switched.status, switched.json.role]).toEqual([200, "member"]);
  expect((await s.call("GET", `/api/v1/links/${made.json.uuid}/`)).status).toBe(404); // acts on the second workspace now
  expect((await s.call("GET", "/api/v1/workspace/")).json.uuid).toBe(other.workspace_uuid);
  expect((await s.call("GET", "/api/v1/members/")).json.code).toBe("INSUFFICIENT_SCOPE"); // a member there
});

test("members: list, role changes, only an owner touches the owner role, the last owner stays, removal stops sessions at once", async () => {
  const t = await createTestApi();
  try {
    const o = await addUser(t, "o@example.com", "owner");
    await addUser(t, "a@example.com", "admin");
    const m = await addUser(t, "m@example.com", "member");
    const owner = await signIn(t, "o@example.com");
    const admin = await signIn(t, "a@example.com");
    const member = await signIn(t, "m@example.com");
    const list = await admin.call("GET", "/api/v1/members/");
    expect(list.json.count).toBe(3);
    expect(list.json.results[0]).toMatchObject({ user_uuid: o.uuid, email: "o@example.com", role: "owner", disabled: false });
    expect(Object.keys(list.json.results[0]).sort()).toEqual(["date_created", "disabled", "email", "last_login_at", "name", "role", "user_uuid"]);

    expect((await admin.call("PATCH", `/api/v1/members/${m.uuid}/`, { body: { role: "viewer" } })).json.role).toBe("viewer");
    expect((await admin.call("PATCH", `/api/v1/members/${m.uuid}/`, { body: { role: "owner" } })).json.code).toBe("INSUFFICIENT_SCOPE");
    expect((await admin.call("DELETE", `/api/v1/members/${o.uuid}/`)).json.code).toBe("INSUFFICIENT_SCOPE");
    expect((await admin.call("POST", "/api/v1/invites/", { body: { email: "z@example.com", role: "owner" } })).json.code).toBe("INSUFFICIENT_SCOPE");
    const last = await owner.call("PATCH", `/api/v1/members/${o.uuid}/`, { body: { role: "admin" } });
    expect([last.status, last.json.code]).toEqual([400, "LAST_OWNER"]);
    expect((await owner.call("DELETE", `/api/v1/members/${o.uuid}/`)).json.code).toBe("LAST_OWNER");
    expect((await owner.call("PATCH", "/api/v1/members/not-a-uuid/", { body: { role: "admin" } })).status).toBe(404);

    expect((await member.call("GET", "/api/v1/links/")).status).toBe(200);
    expect((await admin.call("DELETE", `/api/v1/members/${m.uuid}/`)).status).toBe(200);
    expect((await member.call("GET", "/api/v1/links/")).json.code).toBe("UNAUTHENTICATED");
    const after = await member.call("GET", "/api/v1/auth/session/");
    expect(after.json).toMatchObject({ current_workspace_uuid: null, role: null, scopes: [], memberships: [] });
    expect((await owner.call("GET", "/api/v1/members/")).json.count).toBe(2);
  } finally {
    await t.close();
  }
});

test("PATCH workspace/ needs workspace:write and changes name, host, plan and limits", async () => {
  const owner = await signIn(api, "owner@example.com");
  const r = await owner.call("PATCH", "/api/v1/workspace/", {
    body: { name: "Renamed", host: "https://feedback.acme.lan", plan: "pro", limits: { links: 5, requests_per_minute: 77 } },
  });
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({ name: "Renamed", host: "https://feedback.acme.lan", plan: "pro", limits: { links: 5, requests_per_minute: 77 } });
  const back = await owner.call("PATCH", "/api/v1/workspace/", { body: { host: null, plan: "enterprise", limits: { links: null } } });
  expect(back.json).toMatchObject({ host: `${BASE}/w/${api.ws.workspace_slug}`, plan: "enterprise", limits: { links: null, requests_per_minute: 77 } });
  expect((await owner.call("PATCH", "/api/v1/workspace/", { body: { host: "not an origin" } })).json.errors[0].pointer).toBe("/host");
  expect((await owner.call("PATCH", "/api/v1/workspace/", { body: { plan: "gold" } })).status).toBe(400);
  expect((await api.call("PATCH", "/api/v1/workspace/", { body: { name: "By key" } })).json.code).toBe("INSUFFICIENT_SCOPE");
});
