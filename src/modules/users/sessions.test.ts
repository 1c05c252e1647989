/**
 * Console sessions against the real app (DESIGN §10; issue 10 security tests): sign-in, cookie
 * flags, fixation, throttling, CSRF, expiry, disabled users, password changes, roles acting
 * exactly as a key's scopes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BASE, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { PASSWORD, addUser, cookieOf, sessionCaller, signIn } from "../../../test/helpers/console-session.ts";
import { isoAfter } from "../../clock.ts";
import { sha256Hex } from "../../auth/sessions.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
  await addUser(api, "owner@example.com", "owner");
  await addUser(api, "viewer@example.com", "viewer");
  await addUser(api, "member@example.com", "member");
});
afterAll(() => api.close());

describe("sign-in", () => {
  test("login answers the Session and an HttpOnly, SameSite=Lax, Path=/ cookie; the session endpoint reads it back", async () => {
    const s = await signIn(api, "Owner@Example.com");
    const setCookie = s.reply.headers.get("set-cookie")!;
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).toContain("Path=/");
    expect(setCookie).not.toContain("Secure"); // plain http://localhost
    expect(s.reply.json).toMatchObject({ user: { email: "owner@example.com" }, role: "owner", current_workspace_uuid: api.ws.workspace_uuid });
    expect(s.reply.json.scopes).toContain("workspace:write");
    expect(s.reply.json.memberships).toEqual([
      { workspace_uuid: api.ws.workspace_uuid, workspace_name: "Test workspace", workspace_slug: api.ws.workspace_slug, role: "owner" },
    ]);
    const session = await s.call("GET", "/api/v1/auth/session/");
    expect(session.status).toBe(200);
    expect(session.json.csrf_token).toBe(s.csrf);
    // The password is stored only as an argon2id hash and never comes back.
    const row = await api.db.selectFrom("users").select("password_hash").where("email_key", "=", "owner@example.com").executeTakeFirstOrThrow();
    expect(row.password_hash).toStartWith("$argon2id$");
    expect(row.password_hash).not.toContain(PASSWORD);
    expect(s.reply.text + session.text).not.toMatch(/password|argon2/i);
    // Only the session id's hash is stored.
    expect(await api.db.selectFrom("console_sessions").select("id_hash").where("id_hash", "=", s.cookie).executeTakeFirst()).toBeUndefined();
    expect(await api.db.selectFrom("console_sessions").select("id_hash").where("id_hash", "=", sha256Hex(s.cookie)).executeTakeFirst()).toBeDefined();
  });

  test("every sign-in gets a new session id; a planted or previous cookie is never adopted (fixation)", async () => {
    const first = await signIn(api, "owner@example.com");
    const second = await signIn(api, "owner@example.com", PASSWORD, { cookie: `earshot_session=${first.cookie}` });
    expect(second.cookie).not.toBe(first.cookie);
    expect((await first.call("GET", "/api/v1/auth/session/")).status).toBe(401); // the previous one ended
    const planted = await signIn(api, "owner@example.com", PASSWORD, { cookie: "earshot_session=attacker-chosen-value" });
    expect(planted.cookie).not.toBe("attacker-chosen-value");
    expect((await sessionCaller(api, "attacker-chosen-value", planted.csrf)("GET", "/api/v1/links/")).status).toBe(401);
  });

  test("a wrong email and a wrong password answer alike; logout ends the session and clears the cookie", async () => {
    const wrongPassword = await api.call("POST", "/api/v1/auth/login/", { key: null, body: { email: "member@example.com", password: "not the password!" } });
    const wrongEmail = await api.call("POST", "/api/v1/auth/login/", { key: null, body: { email: "nobody@example.com", password: "not the password!" } });
    expect([wrongPassword.status, wrongPassword.json.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    expect(wrongEmail.json).toEqual(wrongPassword.json);
    expect(cookieOf(wrongPassword)).toBeNull();
    const s = await signIn(api, "member@example.com");
    const out = await s.call("POST", "/api/v1/auth/logout/");
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await s.call("GET", "/api/v1/auth/session/")).json.code).toBe("UNAUTHENTICATED");
  });
});

describe("throttling", () => {
  test("5 failures for an account refuse even the right password with 429 and Retry-After", async () => {
    const t = await createTestApi();
    try {
      await addUser(t, "target@example.com", "owner");
      for (let i = 0; i < 5; i++) {
        const r = await t.call("POST", "/api/v1/auth/login/", { key: null, body: { email: "TARGET@example.com", password: `wrong password ${i}` } });
        expect(r.status).toBe(401);
      }
      const right = await t.call("POST", "/api/v1/auth/login/", { key: null, body: { email: "target@example.com", password: PASSWORD } });
      expect([right.status, right.json.code]).toEqual([429, "RATE_LIMITED"]);
      expect(Number(right.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(right.headers.get("retry-after"))).toBeLessThanOrEqual(15 * 60);
      expect(cookieOf(right)).toBeNull();
      // The failures are audited with the client address (null here: app.handle has no peer).
      const failed = await t.db.selectFrom("audit_log").selectAll().where("action", "=", "login.failed").execute();
      expect(failed).toHaveLength(5);
      expect(failed[0]).toMatchObject({ workspace_uuid: t.ws.workspace_uuid, target_label: "target@example.com" });
    } finally {
      await t.close();
    }
  });

  test("40 parallel attempts: only 5 reach the password check, the right password among the rest gets 429", async () => {
    const t = await createTestApi();
    try {
      await addUser(t, "target@example.com", "owner");
      const n = 40;
      const replies = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          t.call("POST", "/api/v1/auth/login/", { key: null, body: { email: "target@example.com", password: i === n - 1 ? PASSWORD : `wrong password ${i}` } }),
        ),
      );
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(n - 5);
      expect(statuses[n - 1]).toBe(429);
      // Parallel wrong current passwords on the password change are counted the same way.
      await addUser(t, "changer@example.com", "member");
      const s = await signIn(t, "changer@example.com");
      const changes = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          s.call("POST", "/api/v1/auth/me/password/", { body: { current_password: `not it ${i}`, new_password: "a brand new passphrase" } }),
        ),
      );
      expect(changes.filter((r) => r.status === 400)).toHaveLength(5);
      expect(changes.filter((r) => r.status === 429)).toHaveLength(7);
    } finally {
      await t.close();
    }
  });

  test("20 failures from one address refuse every account from it", async () => {
    const t = await createTestApi();
    try {
      await addUser(t, "innocent@example.com", "owner");
      for (let i = 0; i < 20; i++) {
        const r = await t.call("POST", "/api/v1/auth/login/", { key: null, body: { email: `guess${i}@example.com`, password: "wrong password!" } });
        expect(r.status).toBe(401);
      }
      const r = await t.call("POST", "/api/v1/auth/login/", { key: null, body: { email: "innocent@example.com", password: PASSWORD } });
      expect([r.status, r.json.code]).toEqual([429, "RATE_LIMITED"]);
      expect(r.headers.get("retry-after")).toBeTruthy();
    } finally {
      await t.close();
    }
  });
});

describe("CSRF", () => {
  test("a cookie write needs X-CSRF-Token and the same origin; reads do not; a Bearer key needs neither", async () => {
    const s = await signIn(api, "owner@example.com");
    const link = { body: { name: "CSRF probe" } };
    const noToken = await s.call("POST", "/api/v1/links/", { ...link, headers: { "x-csrf-token": "" } });
    expect([noToken.status, noToken.json.code]).toEqual([403, "CSRF_FAILED"]);
    const wrongToken = await s.call("POST", "/api/v1/links/", { ...link, headers: { "x-csrf-token": "x".repeat(43) } });
    expect(wrongToken.json.code).toBe("CSRF_FAILED");
    const foreign = await s.call("POST", "/api/v1/links/", { ...link, headers: { origin: "https://evil.example" } });
    expect([foreign.status, foreign.json.code]).toEqual([403, "CSRF_FAILED"]);
    const foreignReferer = await s.call("DELETE", "/api/v1/tokens/00000000-0000-4000-8000-000000000000/", {
      headers: { origin: "", referer: "https://evil.example/page" },
    });
    expect(foreignReferer.json.code).toBe("CSRF_FAILED");
    const neither = await s.call("POST", "/api/v1/links/", { ...link, headers: { origin: "" } });
    expect(neither.json.code).toBe("CSRF_FAILED");
    expect(await api.db.selectFrom("links").select("uuid").where("name", "=", "CSRF probe").execute()).toHaveLength(0);
    const byReferer = await s.call("POST", "/api/v1/links/", { ...link, headers: { origin: "", referer: `${BASE}/console/links/` } });
    expect(byReferer.status).toBe(201);
    const ok = await s.call("POST", "/api/v1/links/", link);
    expect(ok.status).toBe(201);
    expect((await s.call("GET", "/api/v1/links/", { headers: { "x-csrf-token": "", origin: "https://evil.example" } })).status).toBe(200);
    const logout = await s.call("POST", "/api/v1/auth/logout/", { headers: { origin: "https://evil.example" } });
    expect(logout.json.code).toBe("CSRF_FAILED");
    const login = await api.call("POST", "/api/v1/auth/login/", {
      key: null,
      body: { email: "owner@example.com", password: PASSWORD },
      headers: { origin: "https://evil.example" },
    });
    expect([login.status, login.json.code]).toEqual([403, "CSRF_FAILED"]);
  });
});

describe("session lifetime", () => {
  test("a session idle for more than 12 h, or past its 30 days, answers 401", async () => {
    const idle = await signIn(api, "viewer@example.com");
    await api.db
      .updateTable("console_sessions")
      .set({ last_seen_at: isoAfter(-12 * 3600 - 5) })
      .where("id_hash", "=", sha256Hex(idle.cookie))
      .execute();
    expect((await idle.call("GET", "/api/v1/links/")).json.code).toBe("UNAUTHENTICATED");
    const old = await signIn(api, "viewer@example.com");
    await api.db
      .updateTable("console_sessions")
      .set({ last_seen_at: isoAfter(-11 * 3600) })
      .where("id_hash", "=", sha256Hex(old.cookie))
      .execute();
    expect((await old.call("GET", "/api/v1/links/")).status).toBe(200); // 11 h idle is fine, and refreshes it
    await api.db
      .updateTable("console_sessions")
      .set({ expires_at: isoAfter(-1) })
      .where("id_hash", "=", sha256Hex(old.cookie))
      .execute();
    expect((await old.call("GET", "/api/v1/links/")).json.code).toBe("UNAUTHENTICATED");
    const row = await api.db.selectFrom("console_sessions").select("expires_at").where("user_uuid", "=", idle.reply.json.user.uuid).executeTakeFirst();
    expect(row).toBeUndefined(); // expired rows are dropped when met
  });

  test("a disabled user's sessions stop at once", async () => {
    const user = await addUser(api, "leaver@example.com", "admin");
    const s = await signIn(api, "leaver@example.com");
    expect((await s.call("GET", "/api/v1/links/")).status).toBe(200);
    await api.db.updateTable("users").set({ disabled: 1 }).where("uuid", "=", user.uuid).execute();
    expect((await s.call("GET", "/api/v1/links/")).json.code).toBe("UNAUTHENTICATED");
    expect((await s.call("GET", "/api/v1/auth/session/")).status).toBe(401);
    const again = await api.call("POST", "/api/v1/auth/login/", { key: null, body: { email: "leaver@example.com", password: PASSWORD } });
    expect(again.json.code).toBe("INVALID_CREDENTIALS");
  });

  test("changing the password ends the user's other sessions and keeps this one", async () => {
    await addUser(api, "changer@example.com", "member");
    const here = await signIn(api, "changer@example.com");
    const elsewhere = await signIn(api, "changer@example.com");
    const short = await here.call("POST", "/api/v1/auth/me/password/", { body: { current_password: PASSWORD, new_password: "short" } });
    expect([short.status, short.json.errors[0].pointer]).toEqual([400, "/new_password"]);
    const wrong = await here.call("POST", "/api/v1/auth/me/password/", { body: { current_password: "not it at all", new_password: "a brand new passphrase" } });
    expect([wrong.status, wrong.json.errors[0].pointer]).toEqual([400, "/current_password"]);
    const ok = await here.call("POST", "/api/v1/auth/me/password/", { body: { current_password: PASSWORD, new_password: "a brand new passphrase" } });
    expect(ok.status).toBe(200);
    expect((await elsewhere.call("GET", "/api/v1/links/")).status).toBe(401);
    expect((await here.call("GET", "/api/v1/links/")).status).toBe(200);
    await signIn(api, "changer@example.com", "a brand new passphrase");
    expect((await api.call("POST", "/api/v1/auth/login/", { key: null, body: { email: "changer@example.com", password: PASSWORD } })).status).toBe(401);
    const renamed = await here.call("PATCH", "/api/v1/auth/me/", { body: { name: "Chang Er" } });
    expect(renamed.json.user.name).toBe("Chang Er");
  });
});

describe("roles act as scopes", () => {
  test("a viewer reads but cannot write (403 INSUFFICIENT_SCOPE)", async () => {
    const s = await signIn(api, "viewer@example.com");
    expect((await s.call("GET", "/api/v1/links/")).status).toBe(200);
    const write = await s.call("POST", "/api/v1/links/", { body: { name: "Nope" } });
    expect([write.status, write.json.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    expect(write.json.detail).toContain("links:write");
    expect((await s.call("GET", "/api/v1/tokens/")).json.code).toBe("INSUFFICIENT_SCOPE");
  });

  test("a member cannot manage members or create keys; an admin cannot change the workspace", async () => {
    const m = await signIn(api, "member@example.com");
    expect((await m.call("GET", "/api/v1/members/")).json.code).toBe("INSUFFICIENT_SCOPE");
    expect((await m.call("POST", "/api/v1/invites/", { body: { email: "x@example.com", role: "viewer" } })).json.code).toBe("INSUFFICIENT_SCOPE");
    expect((await m.call("POST", "/api/v1/tokens/", { body: { name: "k" } })).json.code).toBe("INSUFFICIENT_SCOPE");
    expect((await m.call("GET", "/api/v1/tokens/")).status).toBe(200);
    await addUser(api, "admin@example.com", "admin");
    const a = await signIn(api, "admin@example.com");
    expect((await a.call("GET", "/api/v1/members/")).status).toBe(200);
    expect((await a.call("PATCH", "/api/v1/workspace/", { body: { name: "Renamed" } })).json.code).toBe("INSUFFICIENT_SCOPE");
  });

  test("another workspace's data answers 404 to a session", async () => {
    const other = await api.newWorkspace("Other");
    const foreign = await api.call("POST", "/api/v1/links/", { key: other.api_key, body: { name: "Theirs" } });
    const s = await signIn(api, "owner@example.com");
    const r = await s.call("GET", `/api/v1/links/${foreign.json.uuid}/`);
    expect([r.status, r.json.code]).toEqual([404, "NOT_FOUND"]);
    expect((await s.call("DELETE", `/api/v1/links/${foreign.json.uuid}/`)).status).toBe(404);
    expect((await s.call("POST", "/api/v1/auth/session/workspace/", { body: { workspace_uuid: other.workspace_uuid } })).status).toBe(404);
  });

  test("a key created by a session gets the creator's spec scopes when none are asked; admin scopes only on request", async () => {
    const s = await signIn(api, "owner@example.com");
    const plain = await s.call("POST", "/api/v1/tokens/", { body: { name: "CI" } });
    expect(plain.status).toBe(201);
    expect(plain.json.scopes).toEqual([
      "links:read",
      "links:write",
      "responses:read",
      "responses:write",
      "webhooks:read",
      "webhooks:write",
      "tokens:read",
      "tokens:write",
    ]);
    const admin = await s.call("POST", "/api/v1/tokens/", { body: { name: "Admin key", scopes: ["members:read", "audit:read"] } });
    expect([admin.status, admin.json.scopes]).toEqual([201, ["members:read", "audit:read"]]);
    expect((await api.call("GET", "/api/v1/audit/", { key: admin.json.key })).status).toBe(200);
    // A default key (8 spec scopes) cannot mint administrative ones.
    const escalate = await api.call("POST", "/api/v1/tokens/", { body: { name: "x", scopes: ["workspace:write"] } });
    expect(escalate.json.code).toBe("INSUFFICIENT_SCOPE");
  });

  test("a session's requests count against a per-user bucket of the workspace's per-minute limit", async () => {
    const t = await createTestApi();
    try {
      await addUser(t, "busy@example.com", "viewer");
      await t.db.updateTable("workspaces").set({ requests_per_minute: 3 }).where("uuid", "=", t.ws.workspace_uuid).execute();
      const s = await signIn(t, "busy@example.com");
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await s.call("GET", "/api/v1/links/")).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      // The key's own bucket is separate; and sessions do not touch key usage.
      expect((await t.call("GET", "/api/v1/links/")).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

test("the cookie is refused over plain HTTP from a non-loopback peer, like a key (HTTPS_REQUIRED)", async () => {
  const t = await createTestApi({ EARSHOT_ALLOW_INSECURE_HTTP: "0" });
  try {
    await addUser(t, "tls@example.com", "owner");
    // app.handle has no peer address: as far as the transport rule knows, not loopback.
    const plain = await t.call("POST", "/api/v1/auth/login/", { key: null, body: { email: "tls@example.com", password: PASSWORD } });
    expect([plain.status, plain.json.code]).toEqual([403, "HTTPS_REQUIRED"]);
    const login = await t.app.handle(
      new Request("https://localhost/api/v1/auth/login/", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://localhost" },
        body: JSON.stringify({ email: "tls@example.com", password: PASSWORD }),
      }),
    );
    expect(login.status).toBe(200);
    const cookie = /earshot_session=([^;]+)/.exec(login.headers.get("set-cookie")!)![1]!;
    expect(login.headers.get("set-cookie")).toContain("Secure");
    const overHttp = await t.call("GET", "/api/v1/links/", { key: null, headers: { cookie: `earshot_session=${cookie}` } });
    expect([overHttp.status, overHttp.json.code]).toEqual([403, "HTTPS_REQUIRED"]);
    const overHttps = await t.app.handle(new Request("https://localhost/api/v1/links/", { headers: { cookie: `earshot_session=${cookie}` } }));
    expect(overHttps.status).toBe(200);
  } finally {
    await t.close();
  }
});
