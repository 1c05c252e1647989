/**
 * Single sign-on against a real OpenID Provider (`oidc-provider` on a loopback port; DESIGN §15):
 * the whole authorization-code flow with PKCE, then the refusals — a wrong issuer, a replayed
 * code, an expired ID token, a bad state or nonce, a disallowed domain, an unverified email, an
 * unknown person on an invite-only install — and the role mapping applied at every sign-in.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createManualClock, systemClock } from "../../clock.ts";
import { flowCookie } from "./flow-cookie.ts";
import { createOidcFlows } from "./flow.ts";
import { OIDC_REQUESTS_PER_MINUTE } from "./routes.ts";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { addUser, cookieOf, sessionCaller, signIn } from "../../../test/helpers/console-session.ts";
import { loginAtProvider, startTestProvider, type TestProvider } from "../../../test/helpers/oidc-provider.ts";

const CALLBACK = "http://localhost/api/v1/auth/oidc/callback/";
let provider: TestProvider;
const apis: TestApi[] = [];

beforeAll(async () => {
  provider = await startTestProvider([CALLBACK]);
  provider.users.set("ada@example.com", { email: "ada@example.com", email_verified: true, name: "Ada Lovelace", groups: ["earshot-admins"] });
  provider.users.set("bob@example.com", { email: "bob@example.com", email_verified: true, name: "Bob", groups: ["earshot"] });
  provider.users.set("eve@other.org", { email: "eve@other.org", email_verified: true, name: "Eve", groups: ["earshot"] });
  provider.users.set("una@example.com", { email: "una@example.com", email_verified: false, name: "Una", groups: ["earshot"] });
  provider.users.set("nog@example.com", { email: "nog@example.com", email_verified: true, name: "Nog", groups: ["somebody-else"] });
});
afterAll(async () => {
  for (const api of apis) await api.close();
  await provider.close();
});

async function app(env: Record<string, string> = {}, clock?: ReturnType<typeof createManualClock>) {
  const api = await createTestApi(
    provider.serverEnv({
      EARSHOT_OIDC_ROLE_CLAIM: "groups",
      EARSHOT_OIDC_ROLE_MAP: "earshot-admins=admin,earshot=member",
      EARSHOT_OIDC_AUTO_JOIN: "true",
      ...env,
    }),
    "enterprise",
    clock ? { clock } : {},
  );
  apis.push(api);
  return api;
}

/** `GET auth/oidc/start/`, then the login at the provider: the callback URL and this browser's flow cookie. */
async function toProvider(api: TestApi, email: string) {
  const start = await api.call("GET", "/api/v1/auth/oidc/start/", { key: null });
  expect(start.status).toBe(303);
  const flow = /earshot_oidc=([^;]+)/.exec(start.headers.get("set-cookie") ?? "")?.[1];
  expect(flow).toBeTruthy();
  const authorize = new URL(start.headers.get("location")!);
  expect(authorize.origin).toBe(provider.issuer);
  expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorize.searchParams.get("nonce")).toBeTruthy();
  return { back: await loginAtProvider(authorize.href, email), flow: flow! };
}

/** Opens the callback as the browser would (with the flow cookie). */
function callback(api: TestApi, back: URL, flow: string) {
  expect(back.href.startsWith(CALLBACK)).toBe(true);
  return api.call("GET", back.pathname + back.search, { key: null, headers: { cookie: `earshot_oidc=${flow}` } });
}

/** The sign-in page's `sso_error` a refused callback redirects to. */
const ssoError = (reply: { status: number; headers: Headers }) => {
  expect(reply.status).toBe(303);
  return new URL(reply.headers.get("location")!, "http://localhost").searchParams.get("sso_error");
};

/** Signs in through the provider; the session cookie and the `Session` it opens. */
async function ssoSignIn(api: TestApi, email: string) {
  const { back, flow } = await toProvider(api, email);
  const reply = await callback(api, back, flow);
  expect(reply.status).toBe(303);
  expect(reply.headers.get("location")).toBe("/console/links/");
  const cookie = cookieOf(reply)!;
  expect(cookie).toBeTruthy();
  const session = await api.call("GET", "/api/v1/auth/session/", { key: null, headers: { cookie: `earshot_session=${cookie}` } });
  expect(session.status).toBe(200);
  return { cookie, session: session.json };
}

const auditActions = async (api: TestApi) =>
  (await api.db.selectFrom("audit_log").select(["action", "target_label", "actor_name"]).orderBy("time").execute()).map((r) => r);

describe("single sign-on (OpenID Connect)", () => {
  test("success: just-in-time membership with the mapped role; the session works on the API and is audited like a password sign-in", async () => {
    const api = await app();
    const options = await api.call("GET", "/api/v1/auth/oidc/", { key: null });
    expect(options.json).toEqual({ oidc: { provider_name: "Test IdP" }, password_sign_in: true });
    const { cookie, session } = await ssoSignIn(api, "ada@example.com");
    expect(session.user.email).toBe("ada@example.com");
    expect(session.user.name).toBe("Ada Lovelace");
    expect(session.role).toBe("admin");
    // The session acts on the API as a password session does (a CSRF-checked write).
    const call = sessionCaller(api, cookie, session.csrf_token);
    const created = await call("POST", "/api/v1/links/", { body: { name: "From SSO", questions: [{ type: "text", prompt: "Anything?" }] } });
    expect(created.status).toBe(201);
    const actions = (await auditActions(api)).map((a) => a.action);
    expect(actions).toContain("member.joined");
    expect(actions).toContain("login.succeeded");
  });

  test("the role follows the claim at every sign-in (admin → member when the group changes); owners stay owners", async () => {
    const api = await app();
    provider.users.set("cy@example.com", { email: "cy@example.com", email_verified: true, name: "Cy", groups: ["earshot-admins"] });
    expect((await ssoSignIn(api, "cy@example.com")).session.role).toBe("admin");
    provider.users.get("cy@example.com")!.groups = ["earshot"];
    expect((await ssoSignIn(api, "cy@example.com")).session.role).toBe("member");
    const changes = (await auditActions(api)).filter((a) => a.action === "member.role_changed");
    expect(changes.map((c) => c.target_label)).toEqual(["cy@example.com: admin → member (single sign-on role mapping)"]);
    await addUser(api, "bob@example.com", "owner");
    expect((await ssoSignIn(api, "bob@example.com")).session.role).toBe("owner");
  });

  test("a changed mapping changes the role at the next sign-in", async () => {
    const api = await app({ EARSHOT_OIDC_ROLE_MAP: "earshot=viewer" });
    expect((await ssoSignIn(api, "bob@example.com")).session.role).toBe("viewer");
    // The same database and provider under a new mapping (as after a restart with a new EARSHOT_OIDC_ROLE_MAP).
    const remapped = createOidcFlows(api.db, { ...api.config.oidc!, roleMap: [{ value: "earshot", role: "admin" }] }, api.config.publicUrl, systemClock)!;
    const { url, flow } = await remapped.begin(null);
    const back = await loginAtProvider(url, "bob@example.com");
    const started = await remapped.complete(back.search, flowCookie(flow, false).split(";")[0]!.split("=")[1]!, null, null);
    const session = await api.call("GET", "/api/v1/auth/session/", { key: null, headers: { cookie: `earshot_session=${started.cookie}` } });
    expect(session.json.role).toBe("admin");
  });

  test("invite-only: an unknown person is refused with a clear code; a member signs in", async () => {
    const api = await app({ EARSHOT_OIDC_AUTO_JOIN: "false" });
    const { back, flow } = await toProvider(api, "bob@example.com");
    expect(ssoError(await callback(api, back, flow))).toBe("OIDC_NOT_A_MEMBER");
    expect(await api.db.selectFrom("users").select("email").execute()).toEqual([]);
    expect((await auditActions(api)).map((a) => a.action)).toEqual(["login.failed"]);
    await addUser(api, "bob@example.com", "viewer");
    expect((await ssoSignIn(api, "bob@example.com")).session.role).toBe("member");
  });

  test("invite-only: a pending invite is accepted by signing in through the provider (then the mapping applies)", async () => {
    const api = await app({ EARSHOT_OIDC_AUTO_JOIN: "false" });
    await addUser(api, "owner@example.com", "owner");
    const owner = await signIn(api, "owner@example.com");
    const invite = await owner.call("POST", "/api/v1/invites/", { body: { email: "Bob@Example.com", role: "viewer" } });
    expect(invite.status).toBe(201);
    expect((await ssoSignIn(api, "bob@example.com")).session.role).toBe("member");
    expect((await owner.call("GET", "/api/v1/invites/")).json.count).toBe(0);
    const actions = (await auditActions(api)).map((a) => a.action).filter((a) => a !== "login.succeeded");
    expect(actions).toEqual(["member.invited", "member.joined", "member.role_changed"]);
  });

  test("a disallowed domain, an unverified email and an unmapped group are refused", async () => {
    const api = await app({ EARSHOT_OIDC_ALLOWED_DOMAINS: "example.com" });
    for (const [email, code] of [
      ["eve@other.org", "OIDC_DOMAIN_NOT_ALLOWED"],
      ["una@example.com", "OIDC_EMAIL_UNVERIFIED"],
      ["nog@example.com", "OIDC_NO_ROLE"],
    ] as const) {
      const { back, flow } = await toProvider(api, email);
      expect(ssoError(await callback(api, back, flow))).toBe(code);
    }
    expect(await api.db.selectFrom("users").select("email").execute()).toEqual([]);
  });

  test("a replayed code is refused (the provider's one-time code)", async () => {
    const api = await app();
    const { back, flow } = await toProvider(api, "bob@example.com");
    expect((await callback(api, back, flow)).status).toBe(303);
    expect(cookieOf(await callback(api, back, flow))).toBeNull();
    expect(ssoError(await callback(api, back, flow))).toBe("OIDC_FAILED");
  });

  test("a bad state, a missing flow cookie and a bad nonce are refused", async () => {
    const api = await app();
    const a = await toProvider(api, "bob@example.com");
    const forged = new URL(a.back);
    forged.searchParams.set("state", "x".repeat(43));
    expect(ssoError(await callback(api, forged, a.flow))).toBe("OIDC_STATE_INVALID");
    expect(ssoError(await api.call("GET", a.back.pathname + a.back.search, { key: null }))).toBe("OIDC_STATE_INVALID");
    // The same state with another nonce: the ID token's nonce no longer matches.
    const b = await toProvider(api, "bob@example.com");
    const flow = JSON.parse(Buffer.from(b.flow, "base64url").toString());
    const tampered = Buffer.from(JSON.stringify({ ...flow, nonce: "n".repeat(43) })).toString("base64url");
    expect(ssoError(await callback(api, b.back, tampered))).toBe("OIDC_FAILED");
    // The control: an untouched flow signs in.
    const c = await toProvider(api, "bob@example.com");
    expect(cookieOf(await callback(api, c.back, c.flow))).toBeTruthy();
  });

  test("a wrong issuer is refused: in the discovery document, and in the authorization response", async () => {
    const wrong = await app({ EARSHOT_OIDC_ISSUER: provider.issuer.replace("127.0.0.1", "localhost") });
    expect(ssoError(await wrong.call("GET", "/api/v1/auth/oidc/start/", { key: null }))).toBe("OIDC_FAILED");
    const api = await app();
    const { back, flow } = await toProvider(api, "bob@example.com");
    const other = new URL(back);
    other.searchParams.set("iss", "https://attacker.example");
    expect(ssoError(await callback(api, other, flow))).toBe("OIDC_FAILED");
  });

  test("an expired ID token is refused", async () => {
    const clock = createManualClock();
    const api = await app({}, clock);
    provider.setIdTokenTtl(5);
    try {
      const { back, flow } = await toProvider(api, "bob@example.com");
      // Two minutes later: past the token's 5 s and the 30 s tolerance, within the flow's 10 min.
      clock.set(Date.now() + 120_000);
      expect(ssoError(await callback(api, back, flow))).toBe("OIDC_FAILED");
      clock.set(Date.now());
      const again = await toProvider(api, "bob@example.com");
      expect(cookieOf(await callback(api, again.back, again.flow))).toBeTruthy();
    } finally {
      provider.setIdTokenTtl(3600);
    }
  });

  test("EARSHOT_PASSWORD_SIGNIN=false refuses passwords; single sign-on still works", async () => {
    const api = await app({ EARSHOT_PASSWORD_SIGNIN: "false" });
    await addUser(api, "bob@example.com", "member");
    await expect(signIn(api, "bob@example.com")).rejects.toThrow(/PASSWORD_SIGNIN_DISABLED/);
    expect((await api.call("GET", "/api/v1/auth/oidc/", { key: null })).json.password_sign_in).toBe(false);
    expect((await ssoSignIn(api, "bob@example.com")).session.role).toBe("member");
  });

  test("starts and callbacks are limited per client address (RATE_LIMITED on the sign-in page)", async () => {
    const api = await app();
    for (let i = 0; i < OIDC_REQUESTS_PER_MINUTE; i++) {
      const start = await api.call("GET", "/api/v1/auth/oidc/start/", { key: null });
      expect(new URL(start.headers.get("location")!).origin).toBe(provider.issuer);
    }
    expect(ssoError(await api.call("GET", "/api/v1/auth/oidc/start/", { key: null }))).toBe("RATE_LIMITED");
    expect(ssoError(await api.call("GET", "/api/v1/auth/oidc/callback/?code=x&state=y", { key: null }))).toBe("RATE_LIMITED");
  });

  test("without EARSHOT_OIDC_ISSUER the endpoints say so", async () => {
    const api = await createTestApi();
    apis.push(api);
    expect((await api.call("GET", "/api/v1/auth/oidc/", { key: null })).json).toEqual({ oidc: null, password_sign_in: true });
    const start = await api.call("GET", "/api/v1/auth/oidc/start/", { key: null });
    expect(start.status).toBe(404);
    expect(start.json.code).toBe("OIDC_NOT_CONFIGURED");
  });
});
