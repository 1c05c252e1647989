/**
 * Regression tests from the security review of the 2026-11-28 merges: single sign-on and the
 * second factor. They failed before the fixes (written first as `test.failing` probes):
 * - `GET auth/oidc/callback/` started a full session for an account with two-factor on, without
 *   its code, so a workspace's "require two-factor" was met by an enrolment SSO never checked;
 * - a `next` with CR/LF made the callback answer 500 (the Location header refused it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Secret, TOTP } from "otpauth";
import { BASE, createTestApi, type TestApi } from "../helpers/api.ts";
import { addUser, cookieOf, signIn } from "../helpers/console-session.ts";
import { loginAtProvider, startTestProvider, type TestProvider } from "../helpers/oidc-provider.ts";

const CALLBACK = "http://localhost/api/v1/auth/oidc/callback/";
let provider: TestProvider;
let api: TestApi;

beforeAll(async () => {
  provider = await startTestProvider([CALLBACK]);
  provider.users.set("tf@example.com", { email: "tf@example.com", email_verified: true, name: "Tf", groups: ["earshot"] });
  api = await createTestApi(
    {
      EARSHOT_OIDC_ISSUER: provider.issuer,
      EARSHOT_OIDC_CLIENT_ID: provider.clientId,
      EARSHOT_OIDC_CLIENT_SECRET: provider.clientSecret,
    },
    "enterprise",
  );
});
afterAll(async () => {
  await api?.close();
  await provider?.close();
});

/** The whole SSO round trip for `email`: the callback's reply. */
async function ssoCallback(email: string, query = "") {
  const start = await api.call("GET", `/api/v1/auth/oidc/start/${query}`, { key: null });
  expect(start.status).toBe(303);
  const flow = /earshot_oidc=([^;]+)/.exec(start.headers.get("set-cookie") ?? "")![1]!;
  const back = await loginAtProvider(start.headers.get("location")!, email);
  return api.call("GET", back.pathname + back.search, { key: null, headers: { cookie: `earshot_oidc=${flow}` } });
}

describe("review: single sign-on and two-factor", () => {
  test("an account with two-factor on gets no session from SSO without its code", async () => {
    await addUser(api, "tf@example.com", "admin");
    const s = await signIn(api, "tf@example.com");
    const started = await s.call("POST", "/api/v1/auth/two-factor/enrolment/");
    expect(started.status).toBe(201);
    const code = TOTP.generate({ secret: Secret.fromBase32(started.json.secret) });
    expect((await s.call("POST", "/api/v1/auth/two-factor/enrolment/confirm/", { body: { code } })).status).toBe(200);
    // The workspace requires two-factor (turned on by this admin, who uses it).
    expect((await s.call("PUT", "/api/v1/workspace/two-factor/", { body: { required: true } })).status).toBe(200);
    // The password route stops at the code step, as designed.
    const pw = await api.call("POST", "/api/v1/auth/login/", {
      key: null,
      body: { email: "tf@example.com", password: "correct horse battery staple" },
      headers: { origin: BASE },
    });
    expect(pw.status).toBe(401);
    // Single sign-on must stop at the same step: no session cookie before the code.
    const reply = await ssoCallback("tf@example.com");
    const cookie = cookieOf(reply);
    if (cookie) {
      // Today: a full session, passing the workspace's two-factor requirement.
      const links = await api.call("GET", "/api/v1/links/", { key: null, headers: { cookie: `earshot_session=${cookie}` } });
      expect(links.status).not.toBe(200);
    }
    expect(cookie).toBeNull();
  });

  // Finding: safeNext (oidc/flow-cookie.ts) lets control characters through; the callback then
  // builds a Location header that Headers refuses, so a crafted sign-in link ends in a 500 after
  // the session row was written (and no cookie is set).
  test("a `next` with CR/LF is dropped: the callback still redirects (303) with a session", async () => {
    provider.users.set("nx@example.com", { email: "nx@example.com", email_verified: true, name: "Nx", groups: ["earshot"] });
    await addUser(api, "nx@example.com", "member");
    const reply = await ssoCallback("nx@example.com", "?next=%2Fconsole%2Flinks%2F%0D%0AX-Injected%3A%201");
    expect(reply.status).toBe(303);
    expect(cookieOf(reply)).toBeTruthy();
  });
});
