/**
 * Single sign-on honours the user's second factor (issue 28), against a real OpenID Provider
 * (`oidc-provider` on a loopback port): a user with two-factor on who signs in through the
 * provider gets no session but the code step (`/console/login/?two_factor=1`, the ticket in an
 * HttpOnly cookie scoped to `POST auth/two-factor/`); the code — or a recovery code — then starts
 * the session exactly as after a password. Wrong codes, a replayed ticket and a replayed code are
 * refused. Codes come from the `otpauth` library at the app's manual clock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Secret, TOTP } from "otpauth";
import { createManualClock, type ManualClock } from "../../clock.ts";
import { BASE, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { addUser, cookieOf, signIn } from "../../../test/helpers/console-session.ts";
import { loginAtProvider, startTestProvider, type TestProvider } from "../../../test/helpers/oidc-provider.ts";

const CALLBACK = "http://localhost/api/v1/auth/oidc/callback/";
let provider: TestProvider;
let api: TestApi;
let clock: ManualClock;

beforeAll(async () => {
  provider = await startTestProvider([CALLBACK]);
  for (const email of ["tess@example.com", "rex@example.com", "pat@example.com"]) {
    provider.users.set(email, { email, email_verified: true, name: email.slice(0, email.indexOf("@")), groups: ["earshot"] });
  }
  // The provider signs ID tokens on the real clock; the app's starts there and only moves ahead (by time steps).
  clock = createManualClock(Date.now());
  api = await createTestApi(provider.serverEnv(), "enterprise", { clock });
});
afterAll(async () => {
  await api?.close();
  await provider?.close();
});

/** Moves to the next 30 s time step and answers its code (every accepted step is used up). */
const nextCode = (secret: string) => {
  clock.advance(30_000);
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.nowMs() });
};

/** A member with two-factor on (enrolled through the API after a password sign-in): secret and recovery codes. */
async function enrolled(email: string) {
  await addUser(api, email, "member");
  const s = await signIn(api, email);
  const started = await s.call("POST", "/api/v1/auth/two-factor/enrolment/");
  const confirmed = await s.call("POST", "/api/v1/auth/two-factor/enrolment/confirm/", { body: { code: nextCode(started.json.secret) } });
  expect(confirmed.status).toBe(200);
  return { secret: started.json.secret as string, recoveryCodes: confirmed.json.recovery_codes as string[] };
}

/** Start, login at the provider, callback (with the flow cookie): the callback's reply and the `?next=` asked for. */
async function throughProvider(email: string, next?: string) {
  const start = await api.call("GET", `/api/v1/auth/oidc/start/${next ? `?next=${encodeURIComponent(next)}` : ""}`, { key: null });
  const flow = /earshot_oidc=([^;]+)/.exec(start.headers.get("set-cookie") ?? "")![1];
  const back = await loginAtProvider(start.headers.get("location")!, email);
  expect(back.href.startsWith(CALLBACK)).toBe(true);
  return api.call("GET", back.pathname + back.search, { key: null, headers: { cookie: `earshot_oidc=${flow}` } });
}

const ticketOf = (reply: { headers: Headers }) => /earshot_2fa=([^;]*)/.exec(reply.headers.get("set-cookie") ?? "")?.[1] || null;
/** `POST auth/two-factor/` as the console sends it after single sign-on: no ticket in the body, the cookie instead. */
const secondStep = (ticket: string, body: Record<string, string>) =>
  api.call("POST", "/api/v1/auth/two-factor/", { key: null, body, headers: { origin: BASE, cookie: `earshot_2fa=${ticket}` } });
const logins = async (email: string) => {
  const user = await api.db.selectFrom("users").select("uuid").where("email", "=", email).executeTakeFirstOrThrow();
  return (await api.db.selectFrom("audit_log").select("action").where("actor_uuid", "=", user.uuid).execute()).filter((r) => r.action === "login.succeeded")
    .length;
};

describe("single sign-on with two-factor on", () => {
  test("no session until the code: the callback opens the code step with the ticket in an HttpOnly cookie; the code starts the session", async () => {
    const { secret } = await enrolled("tess@example.com");
    const before = await logins("tess@example.com");
    const reply = await throughProvider("tess@example.com", "/console/responses/");
    expect(reply.status).toBe(303);
    expect(reply.headers.get("location")).toBe("/console/login/?two_factor=1&next=%2Fconsole%2Fresponses%2F");
    expect(cookieOf(reply)).toBeNull();
    const ticket = ticketOf(reply)!;
    expect(ticket).toBeTruthy();
    // Not in the URL (history, proxy logs, Referer); HttpOnly, scoped to the one endpoint, as long as the ticket.
    expect(reply.headers.get("location")).not.toContain(ticket);
    const set = reply.headers.get("set-cookie")!;
    expect(set).toMatch(/earshot_2fa=[^;]+; HttpOnly; SameSite=Lax; Path=\/api\/v1\/auth\/two-factor\/; Max-Age=300/);
    expect(await logins("tess@example.com")).toBe(before);

    const wrong = await secondStep(ticket, { code: "000000" });
    expect([wrong.status, wrong.json.code]).toEqual([401, "INVALID_TWO_FACTOR_CODE"]);
    expect(cookieOf(wrong)).toBeNull();

    const code = nextCode(secret);
    const done = await secondStep(ticket, { code });
    expect(done.status).toBe(200);
    expect(done.json.user.email).toBe("tess@example.com");
    const cookie = cookieOf(done)!;
    expect(done.headers.get("set-cookie")).toContain("earshot_2fa=; HttpOnly");
    const session = await api.call("GET", "/api/v1/auth/session/", { key: null, headers: { cookie: `earshot_session=${cookie}` } });
    expect(session.status).toBe(200);
    expect(await logins("tess@example.com")).toBe(before + 1);

    // The ticket is used up, and so is the code's time step (a fresh ticket with the same code).
    const replayTicket = await secondStep(ticket, { code: nextCode(secret) });
    expect([replayTicket.status, replayTicket.json.code]).toEqual([401, "TWO_FACTOR_TICKET_INVALID"]);
    const again = ticketOf(await throughProvider("tess@example.com"))!;
    const replayCode = await secondStep(again, { code });
    expect([replayCode.status, replayCode.json.code]).toEqual([401, "INVALID_TWO_FACTOR_CODE"]);
  });

  test("a recovery code completes it too (once); without ticket or cookie the step is refused", async () => {
    const { recoveryCodes } = await enrolled("rex@example.com");
    const ticket = ticketOf(await throughProvider("rex@example.com"))!;
    const done = await secondStep(ticket, { recovery_code: recoveryCodes[0]! });
    expect(done.status).toBe(200);
    expect(cookieOf(done)).toBeTruthy();
    const next = ticketOf(await throughProvider("rex@example.com"))!;
    const reused = await secondStep(next, { recovery_code: recoveryCodes[0]! });
    expect([reused.status, reused.json.code]).toEqual([401, "INVALID_TWO_FACTOR_CODE"]);
    const none = await api.call("POST", "/api/v1/auth/two-factor/", { key: null, body: { code: "123456" }, headers: { origin: BASE } });
    expect([none.status, none.json.code]).toEqual([401, "TWO_FACTOR_TICKET_INVALID"]);
  });

  test("a user without two-factor still signs straight in", async () => {
    await addUser(api, "pat@example.com", "member");
    const reply = await throughProvider("pat@example.com");
    expect(reply.headers.get("location")).toBe("/console/links/");
    expect(cookieOf(reply)).toBeTruthy();
    expect(ticketOf(reply)).toBeNull();
  });
});
