/**
 * A workspace's own single sign-on (issue 28; docs/decisions/oidc.md "A workspace's own provider")
 * against a real OpenID Provider (`oidc-provider` on a loopback port, allowed through the outbound
 * guard with EARSHOT_WEBHOOK_ALLOW_HOSTS): the owner-only settings (secret never returned, stored
 * encrypted, discovery checked, audited), and the sign-in rules — allowed domains, `(issuer, sub)`
 * binding and the linking refusal, a session limited to the workspace, account-wide changes
 * refused, the role mapping confined to the workspace and never owner, two-factor as for the
 * server's provider, and the same refusals as the server's provider's tests.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Secret, TOTP } from "otpauth";
import { createManualClock, type ManualClock } from "../../clock.ts";
import { BASE, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { addUser, cookieOf, sessionCaller, signIn, type Signed } from "../../../test/helpers/console-session.ts";
import { loginAtProvider, startTestProvider, type TestProvider } from "../../../test/helpers/oidc-provider.ts";

const CALLBACK = "http://localhost/api/v1/auth/oidc/callback/";
/** The test workspace's slug (createTestApi names it "Test workspace"). */
const SLUG = "test-workspace";
let provider: TestProvider;
const apis: TestApi[] = [];

/** People at the provider, by login (= `sub`). */
const person = (email: string, groups = ["earshot"], verified = true) => ({
  email,
  email_verified: verified,
  name: email.slice(0, email.indexOf("@")),
  groups,
});

beforeAll(async () => {
  provider = await startTestProvider([CALLBACK]);
  provider.users.set("ann", person("ann@corp.example", ["earshot-admins"]));
  provider.users.set("ben", person("ben@corp.example"));
  provider.users.set("eve", person("eve@elsewhere.example"));
  provider.users.set("una", person("una@corp.example", ["earshot"], false));
  provider.users.set("nog", person("nog@corp.example", ["somebody-else"]));
  // The other workspace's owner, as the provider of this workspace's owner would claim them.
  provider.users.set("fake-olga", person("olga@corp.example", ["earshot-admins"]));
});
afterAll(async () => {
  for (const api of apis) await api.close();
  await provider.close();
});

type Ctx = { api: TestApi; owner: Signed; other: { workspace_uuid: string } };

/** An app whose test workspace (`test-workspace`) has its owner signed in, and a second workspace. */
async function app(clock?: ManualClock, env: Record<string, string> = {}): Promise<Ctx> {
  const api = await createTestApi({ EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost", ...env }, "enterprise", clock ? { clock } : {});
  apis.push(api);
  await addUser(api, "owner@corp.example", "owner");
  const owner = await signIn(api, "owner@corp.example");
  const other = await api.newWorkspace("Other workspace");
  return { api, owner, other };
}

const SETTINGS = () => ({
  issuer: provider.issuer,
  client_id: provider.clientId,
  client_secret: provider.clientSecret,
  allowed_domains: ["corp.example"],
  role_claim: "groups",
  role_map: [
    { value: "earshot-admins", role: "admin" },
    { value: "earshot", role: "member" },
  ],
  auto_join: true,
  provider_name: "Corp IdP",
});

async function configure(ctx: Ctx, changes: Record<string, unknown> = {}) {
  const reply = await ctx.owner.call("PUT", "/api/v1/workspace/sso/", { body: { ...SETTINGS(), ...changes } });
  expect(reply.status).toBe(200);
  return reply;
}

/** Start with `?workspace=`, the login at the provider, and this browser's flow cookie. */
async function toProvider(api: TestApi, login: string, workspace = SLUG) {
  const start = await api.call("GET", `/api/v1/auth/oidc/start/?workspace=${workspace}`, { key: null });
  expect(start.status).toBe(303);
  const flow = /earshot_oidc=([^;]+)/.exec(start.headers.get("set-cookie") ?? "")?.[1];
  expect(flow).toBeTruthy();
  expect(new URL(start.headers.get("location")!).origin).toBe(provider.issuer);
  return { back: await loginAtProvider(start.headers.get("location")!, login), flow: flow! };
}
const callback = (api: TestApi, back: URL, flow: string) => {
  expect(back.href.startsWith(CALLBACK)).toBe(true);
  return api.call("GET", back.pathname + back.search, { key: null, headers: { cookie: `earshot_oidc=${flow}` } });
};
const ssoError = (reply: { status: number; headers: Headers }) => {
  expect(reply.status).toBe(303);
  return new URL(reply.headers.get("location")!, BASE).searchParams.get("sso_error");
};
/** The `sso_error` of a sign-in through the workspace's provider. */
async function refusal(api: TestApi, login: string) {
  const { back, flow } = await toProvider(api, login);
  return ssoError(await callback(api, back, flow));
}

/** Signs in through the workspace's provider: the session's caller and its `Session`. */
async function wsSignIn(api: TestApi, login: string) {
  const { back, flow } = await toProvider(api, login);
  const reply = await callback(api, back, flow);
  expect(reply.headers.get("location")).toBe("/console/links/");
  const cookie = cookieOf(reply)!;
  expect(cookie).toBeTruthy();
  const session = await api.call("GET", "/api/v1/auth/session/", { key: null, headers: { cookie: `earshot_session=${cookie}` } });
  expect(session.status).toBe(200);
  return { call: sessionCaller(api, cookie, session.json.csrf_token), session: session.json, cookie };
}

const roleIn = async (api: TestApi, email: string, workspaceUuid: string) =>
  (
    await api.db
      .selectFrom("memberships")
      .innerJoin("users", "users.uuid", "memberships.user_uuid")
      .select("memberships.role")
      .where("users.email", "=", email)
      .where("memberships.workspace_uuid", "=", workspaceUuid)
      .executeTakeFirst()
  )?.role ?? null;
const actions = async (api: TestApi, workspaceUuid: string) =>
  (await api.db.selectFrom("audit_log").select("action").where("workspace_uuid", "=", workspaceUuid).orderBy("time").execute()).map((r) => r.action);

describe("a workspace's own single sign-on: settings", () => {
  test("owners set, read and remove it; the secret is stored encrypted and never returned; saving and removing are audited", async () => {
    const ctx = await app();
    const { api, owner } = ctx;
    expect((await owner.call("GET", "/api/v1/workspace/sso/")).json.code).toBe("OIDC_NOT_CONFIGURED");
    const put = await configure(ctx);
    expect(put.json).toMatchObject({
      issuer: provider.issuer,
      client_secret_set: true,
      allowed_domains: ["corp.example"],
      enabled: true,
      provider_name: "Corp IdP",
    });
    expect(put.json.sign_in_url).toBe(`${BASE}/console/login/?workspace=${SLUG}`);
    expect(put.json.redirect_uri).toBe(CALLBACK);
    expect(put.text).not.toContain(provider.clientSecret);
    const got = await owner.call("GET", "/api/v1/workspace/sso/");
    expect(got.text).not.toContain(provider.clientSecret);
    const row = await api.db.selectFrom("workspace_oidc_providers").selectAll().executeTakeFirstOrThrow();
    expect(row.client_secret_encrypted).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(provider.clientSecret);
    // Left out, the secret stays; the sign-in page finds the provider by slug or uuid.
    expect((await configure(ctx, { client_secret: undefined, provider_name: "Corp" })).json.client_secret_set).toBe(true);
    for (const w of [SLUG, api.ws.workspace_uuid]) {
      const option = await api.call("GET", `/api/v1/auth/oidc/workspaces/${w}/`, { key: null });
      expect(option.json).toEqual({ workspace_slug: SLUG, provider_name: "Corp", start_url: `/api/v1/auth/oidc/start/?workspace=${SLUG}` });
    }
    expect((await api.call("GET", "/api/v1/auth/oidc/workspaces/other-workspace/", { key: null })).json.code).toBe("OIDC_NOT_CONFIGURED");
    // "Test connection": the stored settings' discovery document, loaded again.
    const checked = await owner.call("POST", "/api/v1/workspace/sso/check/", { body: {} });
    expect([checked.status, checked.json.issuer]).toEqual([200, provider.issuer]);
    expect((await owner.call("DELETE", "/api/v1/workspace/sso/")).status).toBe(200);
    expect((await owner.call("POST", "/api/v1/workspace/sso/check/", { body: {} })).json.code).toBe("OIDC_NOT_CONFIGURED");
    expect((await api.call("GET", `/api/v1/auth/oidc/workspaces/${SLUG}/`, { key: null })).status).toBe(404);
    expect(ssoError(await api.call("GET", `/api/v1/auth/oidc/start/?workspace=${SLUG}`, { key: null }))).toBe("OIDC_NOT_CONFIGURED");
    expect((await actions(api, api.ws.workspace_uuid)).filter((a) => a.startsWith("sso."))).toEqual(["sso.updated", "sso.updated", "sso.removed"]);
  });

  test("admins may not; domains are required; owner is never a mapped role; a discovery that fails or names another issuer is refused", async () => {
    const ctx = await app();
    await addUser(ctx.api, "adam@corp.example", "admin");
    const admin = await signIn(ctx.api, "adam@corp.example");
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", SETTINGS()],
      ["DELETE", undefined],
    ] as const) {
      expect((await admin.call(method, "/api/v1/workspace/sso/", { body })).json.code).toBe("INSUFFICIENT_SCOPE");
    }
    const put = (changes: Record<string, unknown>) => ctx.owner.call("PUT", "/api/v1/workspace/sso/", { body: { ...SETTINGS(), ...changes } });
    expect((await put({ allowed_domains: [] })).json.code).toBe("VALIDATION_ERROR");
    expect((await put({ allowed_domains: ["*"] })).json.code).toBe("VALIDATION_ERROR");
    expect((await put({ role_map: [{ value: "earshot", role: "owner" }] })).json.code).toBe("VALIDATION_ERROR");
    // Not in EARSHOT_WEBHOOK_ALLOW_HOSTS: the outbound guard's rule (https, no loopback).
    expect((await put({ issuer: "http://127.0.0.2:9/" })).json.code).toBe("VALIDATION_ERROR");
    expect((await put({ issuer: "http://127.0.0.1:1" })).json.code).toBe("OIDC_DISCOVERY_FAILED");
    // The discovery document's issuer is 127.0.0.1:port, not localhost:port.
    const wrong = await put({ issuer: provider.issuer.replace("127.0.0.1", "localhost") });
    expect([wrong.status, wrong.json.code]).toEqual([422, "OIDC_DISCOVERY_FAILED"]);
    // A wrong path: the detail says what the provider answered.
    const missing = await put({ issuer: `${provider.issuer.replace(/\/$/, "")}/no-such-realm` });
    expect([missing.status, missing.json.code]).toEqual([422, "OIDC_DISCOVERY_FAILED"]);
    expect(missing.json.detail).toContain("(HTTP 404");
    expect(await ctx.api.db.selectFrom("workspace_oidc_providers").select("issuer").execute()).toEqual([]);
  });
});

describe("a workspace's own single sign-on: signing in", () => {
  test("a new person of an allowed domain joins this workspace only, with the mapped role, bound by (issuer, sub), in a session limited to it", async () => {
    const ctx = await app();
    await configure(ctx);
    const { session } = await wsSignIn(ctx.api, "ann");
    expect(session.user.email).toBe("ann@corp.example");
    expect(session.role).toBe("admin");
    expect(session.memberships.map((m: { workspace_uuid: string }) => m.workspace_uuid)).toEqual([ctx.api.ws.workspace_uuid]);
    const identity = await ctx.api.db.selectFrom("oidc_identities").selectAll().executeTakeFirstOrThrow();
    expect([identity.issuer, identity.subject]).toEqual([provider.issuer, "ann"]);
    expect(await roleIn(ctx.api, "ann@corp.example", ctx.other.workspace_uuid)).toBeNull();
    expect(await actions(ctx.api, ctx.api.ws.workspace_uuid)).toEqual(expect.arrayContaining(["sso.identity_linked", "member.joined", "login.succeeded"]));
    // Invite-only: an unknown person is refused.
    await configure(ctx, { auto_join: false });
    expect(await refusal(ctx.api, "ben")).toBe("OIDC_NOT_A_MEMBER");
  });

  test("the limited session: another workspace of the account answers as to a non-member; account-wide changes are refused", async () => {
    const ctx = await app();
    // No role mapping here: Ben stays the admin he is (admins make keys).
    await configure(ctx, { role_claim: null, role_map: [] });
    const user = await addUser(ctx.api, "ben@corp.example", "admin");
    await ctx.api.db
      .insertInto("memberships")
      .values({ user_uuid: user.uuid, workspace_uuid: ctx.other.workspace_uuid, role: "admin", date_created: new Date().toISOString() })
      .execute();
    const ben = await wsSignIn(ctx.api, "ben");
    expect(ben.session.memberships.map((m: { workspace_uuid: string }) => m.workspace_uuid)).toEqual([ctx.api.ws.workspace_uuid]);
    const swap = await ben.call("POST", "/api/v1/auth/session/workspace/", { body: { workspace_uuid: ctx.other.workspace_uuid } });
    expect([swap.status, swap.json.code]).toEqual([404, "NOT_FOUND"]);
    // Even a session row pointed at the other workspace acts on nothing there.
    const idHash = new Bun.CryptoHasher("sha256").update(ben.cookie).digest("hex");
    await ctx.api.db.updateTable("console_sessions").set({ workspace_uuid: ctx.other.workspace_uuid }).where("id_hash", "=", idHash).execute();
    expect((await ben.call("GET", "/api/v1/links/")).json.code).toBe("UNAUTHENTICATED");
    await ctx.api.db.updateTable("console_sessions").set({ workspace_uuid: ctx.api.ws.workspace_uuid }).where("id_hash", "=", idHash).execute();
    expect((await ben.call("GET", "/api/v1/links/")).status).toBe(200);
    for (const [path, body] of [
      ["/api/v1/auth/me/password/", { current_password: "correct horse battery staple", new_password: "another long passphrase here" }],
      ["/api/v1/auth/two-factor/enrolment/", undefined],
    ] as const) {
      const r = await ben.call("POST", path, { body });
      expect([r.status, r.json.code]).toEqual([403, "SESSION_LIMITED_TO_WORKSPACE"]);
    }
    expect((await ben.call("PATCH", "/api/v1/auth/me/", { body: { name: "Mallory" } })).json.code).toBe("SESSION_LIMITED_TO_WORKSPACE");
    // A key made in this session belongs to this workspace.
    const key = await ben.call("POST", "/api/v1/tokens/", { body: { name: "ci", scopes: ["links:read"] } });
    expect(key.status).toBe(201);
    const row = await ctx.api.db.selectFrom("api_tokens").select("workspace_uuid").where("uuid", "=", key.json.uuid).executeTakeFirstOrThrow();
    expect(row.workspace_uuid).toBe(ctx.api.ws.workspace_uuid);
    // The same account signed in with its password is not limited.
    const full = await signIn(ctx.api, "ben@corp.example");
    expect((await full.call("POST", "/api/v1/auth/session/workspace/", { body: { workspace_uuid: ctx.other.workspace_uuid } })).status).toBe(200);
    // Removing the provider ends the sessions it started, not the others.
    expect((await ctx.owner.call("DELETE", "/api/v1/workspace/sso/")).status).toBe(200);
    expect((await ben.call("GET", "/api/v1/links/")).json.code).toBe("UNAUTHENTICATED");
    expect((await full.call("GET", "/api/v1/links/")).status).toBe(200);
  });

  test("an account of another workspace is not linked by email; nor one bound to another subject; a member or invitee is", async () => {
    const ctx = await app();
    await configure(ctx);
    await addUser(ctx.api, "olga@corp.example", "owner", { workspaceUuid: ctx.other.workspace_uuid });
    expect(await refusal(ctx.api, "fake-olga")).toBe("OIDC_ACCOUNT_NOT_LINKABLE");
    expect(await ctx.api.db.selectFrom("oidc_identities").select("subject").execute()).toEqual([]);
    expect(await roleIn(ctx.api, "olga@corp.example", ctx.api.ws.workspace_uuid)).toBeNull();
    expect((await actions(ctx.api, ctx.api.ws.workspace_uuid)).at(-1)).toBe("login.failed");
    expect(await actions(ctx.api, ctx.other.workspace_uuid)).not.toContain("login.failed");
    // Invited to this workspace: linked, the invite accepted (then the mapping applies).
    const invite = await ctx.owner.call("POST", "/api/v1/invites/", { body: { email: "olga@corp.example", role: "viewer" } });
    expect(invite.status).toBe(201);
    expect((await wsSignIn(ctx.api, "fake-olga")).session.role).toBe("admin");
    expect(await roleIn(ctx.api, "olga@corp.example", ctx.other.workspace_uuid)).toBe("owner");
    // Bound to `fake-olga` now: another subject with the same email is refused.
    provider.users.set("olga-2", person("olga@corp.example"));
    expect(await refusal(ctx.api, "olga-2")).toBe("OIDC_ACCOUNT_NOT_LINKABLE");
  });

  test("the role follows the claim in this workspace only; owners stay owners", async () => {
    const ctx = await app();
    await configure(ctx);
    provider.users.set("cy", person("cy@corp.example", ["earshot-admins"]));
    expect((await wsSignIn(ctx.api, "cy")).session.role).toBe("admin");
    const cy = await ctx.api.db.selectFrom("users").select("uuid").where("email", "=", "cy@corp.example").executeTakeFirstOrThrow();
    await ctx.api.db
      .insertInto("memberships")
      .values({ user_uuid: cy.uuid, workspace_uuid: ctx.other.workspace_uuid, role: "admin", date_created: new Date().toISOString() })
      .execute();
    provider.users.get("cy")!.groups = ["earshot"];
    expect((await wsSignIn(ctx.api, "cy")).session.role).toBe("member");
    expect(await roleIn(ctx.api, "cy@corp.example", ctx.other.workspace_uuid)).toBe("admin");
    // A changed mapping applies at the next sign-in.
    await configure(ctx, { role_map: [{ value: "earshot", role: "viewer" }] });
    expect((await wsSignIn(ctx.api, "cy")).session.role).toBe("viewer");
    // The owner signs in through it and stays owner.
    provider.users.set("owner", person("owner@corp.example"));
    expect((await wsSignIn(ctx.api, "owner")).session.role).toBe("owner");
  });

  test("a disallowed domain, an unverified email, an unmapped group, a replayed code and a wrong issuer are refused", async () => {
    const ctx = await app();
    await configure(ctx);
    expect(await refusal(ctx.api, "eve")).toBe("OIDC_DOMAIN_NOT_ALLOWED");
    expect(await refusal(ctx.api, "una")).toBe("OIDC_EMAIL_UNVERIFIED");
    expect(await refusal(ctx.api, "nog")).toBe("OIDC_NO_ROLE");
    expect(await ctx.api.db.selectFrom("users").select("email").where("email", "!=", "owner@corp.example").execute()).toEqual([]);
    const { back, flow } = await toProvider(ctx.api, "ben");
    expect(cookieOf(await callback(ctx.api, back, flow))).toBeTruthy();
    expect(ssoError(await callback(ctx.api, back, flow))).toBe("OIDC_FAILED");
    const again = await toProvider(ctx.api, "ben");
    const forged = new URL(again.back);
    forged.searchParams.set("iss", "https://attacker.example");
    expect(ssoError(await callback(ctx.api, forged, again.flow))).toBe("OIDC_FAILED");
  });

  test("an expired ID token is refused", async () => {
    const clock = createManualClock(Date.now());
    const ctx = await app(clock);
    await configure(ctx);
    provider.setIdTokenTtl(5);
    try {
      const { back, flow } = await toProvider(ctx.api, "ben");
      clock.set(Date.now() + 120_000);
      expect(ssoError(await callback(ctx.api, back, flow))).toBe("OIDC_FAILED");
      clock.set(Date.now());
      const again = await toProvider(ctx.api, "ben");
      expect(cookieOf(await callback(ctx.api, again.back, again.flow))).toBeTruthy();
    } finally {
      provider.setIdTokenTtl(3600);
    }
  });

  test("two-factor applies as for the server's provider: the code step, then a session limited to the workspace", async () => {
    const clock = createManualClock(Date.now());
    const ctx = await app(clock);
    await configure(ctx);
    await addUser(ctx.api, "tess@corp.example", "member");
    provider.users.set("tess", person("tess@corp.example"));
    const s = await signIn(ctx.api, "tess@corp.example");
    const started = await s.call("POST", "/api/v1/auth/two-factor/enrolment/");
    const code = () => {
      clock.advance(30_000);
      return TOTP.generate({ secret: Secret.fromBase32(started.json.secret), timestamp: clock.nowMs() });
    };
    expect((await s.call("POST", "/api/v1/auth/two-factor/enrolment/confirm/", { body: { code: code() } })).status).toBe(200);
    const { back, flow } = await toProvider(ctx.api, "tess");
    const reply = await callback(ctx.api, back, flow);
    expect(reply.headers.get("location")).toBe("/console/login/?two_factor=1");
    expect(cookieOf(reply)).toBeNull();
    const ticket = /earshot_2fa=([^;]*)/.exec(reply.headers.get("set-cookie") ?? "")![1]!;
    const done = await ctx.api.call("POST", "/api/v1/auth/two-factor/", {
      key: null,
      body: { code: code() },
      headers: { origin: BASE, cookie: `earshot_2fa=${ticket}` },
    });
    expect(done.status).toBe(200);
    const session = await ctx.api.db
      .selectFrom("console_sessions")
      .selectAll()
      .where("id_hash", "=", new Bun.CryptoHasher("sha256").update(cookieOf(done)!).digest("hex"))
      .executeTakeFirstOrThrow();
    expect(session.limited_to_workspace_uuid).toBe(ctx.api.ws.workspace_uuid);
  });

  test("beside it the server's provider works unchanged: its flow comes back to it and its session is not limited", async () => {
    const ctx = await app(undefined, {
      EARSHOT_OIDC_ISSUER: provider.issuer,
      EARSHOT_OIDC_CLIENT_ID: provider.clientId,
      EARSHOT_OIDC_CLIENT_SECRET: provider.clientSecret,
      EARSHOT_OIDC_PROVIDER_NAME: "Server IdP",
    });
    // Invite-only on the workspace's side: only the server's provider can let Ben in.
    await configure(ctx, { auto_join: false });
    const user = await addUser(ctx.api, "ben@corp.example", "member");
    await ctx.api.db
      .insertInto("memberships")
      .values({ user_uuid: user.uuid, workspace_uuid: ctx.other.workspace_uuid, role: "viewer", date_created: new Date().toISOString() })
      .execute();
    const start = await ctx.api.call("GET", "/api/v1/auth/oidc/start/", { key: null });
    const flow = /earshot_oidc=([^;]+)/.exec(start.headers.get("set-cookie") ?? "")![1]!;
    const reply = await callback(ctx.api, await loginAtProvider(start.headers.get("location")!, "ben"), flow);
    const cookie = cookieOf(reply)!;
    const session = await ctx.api.call("GET", "/api/v1/auth/session/", { key: null, headers: { cookie: `earshot_session=${cookie}` } });
    expect(session.json.memberships).toHaveLength(2);
    expect(await ctx.api.db.selectFrom("oidc_identities").select("subject").execute()).toEqual([]);
    // And the workspace's flow still goes to the workspace's rules (Ben is a member there).
    expect((await wsSignIn(ctx.api, "ben")).session.memberships).toHaveLength(1);
  });
});
