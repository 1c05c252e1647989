/**
 * What a member granted goes with their access (security review findings 6, 13, 14; docs/console.md
 * "Roles"): keys a user created — directly or through a key they created — are revoked when the
 * user is removed or demoted below the key's scopes, their pending invites are withdrawn, and
 * `GET tokens/` names each key's creator. Sessions are re-checked for their role inside writes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BASE, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { addUser, signIn } from "../../../test/helpers/console-session.ts";
import { createAuthenticator } from "../../auth/authenticate.ts";
import { createRateLimiter } from "../../auth/rate-limit.ts";

let t: TestApi;
beforeAll(async () => {
  t = await createTestApi();
  await addUser(t, "owner@example.com", "owner");
});
afterAll(() => t.close());

const ADMIN_SCOPES = ["links:read", "responses:read", "members:write", "members:read", "tokens:write", "tokens:read"];

test("removing a member revokes the keys they created (and keys those keys created) and withdraws their invites", async () => {
  const admin = await addUser(t, "admin@example.com", "admin");
  const a = await signIn(t, "admin@example.com");
  const key = await a.call("POST", "/api/v1/tokens/", { body: { name: "ci", scopes: ADMIN_SCOPES } });
  expect(key.status).toBe(201);
  expect(key.json.created_by).toEqual({ user_uuid: admin.uuid, name: "admin", email: "admin@example.com" });
  const child = await t.call("POST", "/api/v1/tokens/", { key: key.json.key, body: { name: "child", scopes: ["links:read"] } });
  expect(child.json.created_by?.user_uuid).toBe(admin.uuid);
  const bySession = await a.call("POST", "/api/v1/invites/", { body: { email: "friend@example.com", role: "member" } });
  const byKey = await t.call("POST", "/api/v1/invites/", { key: key.json.key, body: { email: "friend2@example.com", role: "admin" } });
  expect([bySession.status, byKey.status]).toEqual([201, 201]);
  const operatorKey = await t.call("POST", "/api/v1/tokens/", { body: { name: "operator's" } }); // made with the workspace key
  const listed = await t.call("GET", "/api/v1/tokens/?page_size=100");
  const row = (uuid: string) => listed.json.results.find((r: { uuid: string }) => r.uuid === uuid);
  expect(row(key.json.uuid).created_by).toEqual({ user_uuid: admin.uuid, name: "admin", email: "admin@example.com" });
  expect(row(operatorKey.json.uuid).created_by).toBeNull();

  const o = await signIn(t, "owner@example.com");
  expect((await o.call("DELETE", `/api/v1/members/${admin.uuid}/`)).status).toBe(200);
  for (const k of [key.json.key, child.json.key]) {
    const r = await t.call("GET", "/api/v1/links/", { key: k });
    expect([r.status, r.json.code]).toEqual([401, "UNAUTHENTICATED"]);
  }
  expect((await t.call("POST", "/api/v1/invites/", { key: key.json.key, body: { email: "evil@evil.test", role: "admin" } })).status).toBe(401);
  expect((await t.call("GET", "/api/v1/links/", { key: operatorKey.json.key })).status).toBe(200);
  // Their pending invites are gone: the URLs stop working.
  for (const invite of [bySession.json, byKey.json]) {
    const token = new URL(invite.url).searchParams.get("token");
    expect((await t.call("GET", `/api/v1/auth/invites/${token}/`, { key: null })).status).toBe(404);
  }
  const audit = await o.call("GET", "/api/v1/audit/?action=token.revoked&page_size=100");
  expect(audit.json.results.map((e: { target: { uuid: string } }) => e.target.uuid).sort()).toEqual([key.json.uuid, child.json.uuid].sort());
});

test("demoting a member revokes only their keys holding a scope the new role lacks, and invites it could not issue", async () => {
  const admin = await addUser(t, "demoted@example.com", "admin");
  const a = await signIn(t, "demoted@example.com");
  const strong = await a.call("POST", "/api/v1/tokens/", { body: { name: "strong", scopes: ["links:read", "members:write"] } });
  const weak = await a.call("POST", "/api/v1/tokens/", { body: { name: "weak", scopes: ["links:read"] } });
  const invite = await a.call("POST", "/api/v1/invites/", { body: { email: "later@example.com", role: "viewer" } });
  const o = await signIn(t, "owner@example.com");
  expect((await o.call("PATCH", `/api/v1/members/${admin.uuid}/`, { body: { role: "member" } })).status).toBe(200);
  expect((await t.call("GET", "/api/v1/links/", { key: strong.json.key })).status).toBe(401);
  expect((await t.call("GET", "/api/v1/links/", { key: weak.json.key })).status).toBe(200);
  const token = new URL(invite.json.url).searchParams.get("token");
  expect((await t.call("GET", `/api/v1/auth/invites/${token}/`, { key: null })).status).toBe(404);
});

test("a session's write re-check fails once its role changed since the request was authorized", async () => {
  const user = await addUser(t, "racer@example.com", "owner");
  const s = await signIn(t, "racer@example.com");
  const auth = createAuthenticator(t.db, t.config, createRateLimiter());
  const request = new Request(`${BASE}/api/v1/workspace/`, {
    method: "PATCH",
    headers: { cookie: `earshot_session=${s.cookie}`, "x-csrf-token": s.csrf, origin: BASE },
  });
  const ctx = await auth.authenticate(request, null, "workspace:write");
  await auth.assertActive(t.db, ctx);
  await t.db.updateTable("memberships").set({ role: "viewer" }).where("user_uuid", "=", user.uuid).execute();
  await expect(auth.assertActive(t.db, ctx)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
  await auth.usage.stop();
  // Changing one's own role answers (the change was checked and made in one transaction).
  await addUser(t, "second-owner@example.com", "owner");
  const self = await signIn(t, "second-owner@example.com");
  const demoted = await self.call("PATCH", `/api/v1/members/${self.reply.json.user.uuid}/`, { body: { role: "admin" } });
  expect([demoted.status, demoted.json.role]).toEqual([200, "admin"]);
});

test("an admin cannot remove a member being made owner at the same time (the guards read inside the transaction)", async () => {
  await addUser(t, "admin2@example.com", "admin");
  const a = await signIn(t, "admin2@example.com");
  const o = await signIn(t, "owner@example.com");
  for (let i = 0; i < 8; i++) {
    const target = await addUser(t, `target${i}@example.com`, "member");
    const [promote, remove] = await Promise.all([
      o.call("PATCH", `/api/v1/members/${target.uuid}/`, { body: { role: "owner" } }),
      a.call("DELETE", `/api/v1/members/${target.uuid}/`),
    ]);
    // Either order is fine; an admin removing an owner is not.
    expect([
      [200, 403],
      [404, 200],
    ]).toContainEqual([promote.status, remove.status]);
  }
});
