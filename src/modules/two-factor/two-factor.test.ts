/**
 * Two-factor authentication against the real app (issue 28; DESIGN §15): enrolment, sign-in with a
 * code, replay refusal, recovery codes, the throttle, the workspace requirement, disabling. Codes
 * are computed here with the `otpauth` library from the secret the API returned, at the app's
 * manual clock, which the tests move forward instead of waiting.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Secret, TOTP } from "otpauth";
import { BASE, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { PASSWORD, addUser, cookieOf, sessionCaller, signIn, type Signed } from "../../../test/helpers/console-session.ts";
import { createManualClock, type ManualClock } from "../../clock.ts";

let api: TestApi;
let clock: ManualClock;
beforeAll(async () => {
  clock = createManualClock(Date.UTC(2026, 10, 28, 9, 0, 0));
  api = await createTestApi({}, "enterprise", { clock });
});
afterAll(() => api.close());

const codeAt = (secret: string, ms = clock.nowMs()) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: ms });
/** Moves to the next 30 s time step and answers its code (every accepted step is used up). */
const nextCode = (secret: string) => {
  clock.advance(30_000);
  return codeAt(secret);
};
const login = (email: string, password = PASSWORD) =>
  api.call("POST", "/api/v1/auth/login/", { key: null, body: { email, password }, headers: { origin: BASE } });
const secondStep = (body: Record<string, string>) => api.call("POST", "/api/v1/auth/two-factor/", { key: null, body, headers: { origin: BASE } });

/** Enrols the signed-in user; answers the secret and the recovery codes. */
async function enrol(s: Signed): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await s.call("POST", "/api/v1/auth/two-factor/enrolment/");
  expect(started.status).toBe(201);
  const confirmed = await s.call("POST", "/api/v1/auth/two-factor/enrolment/confirm/", { body: { code: nextCode(started.json.secret) } });
  expect(confirmed.status).toBe(200);
  return { secret: started.json.secret, recoveryCodes: confirmed.json.recovery_codes };
}

async function auditActions(): Promise<string[]> {
  const rows = await api.db.selectFrom("audit_log").select("action").where("workspace_uuid", "=", api.ws.workspace_uuid).execute();
  return rows.map((r) => r.action);
}

describe("enrolment", () => {
  test("the secret is shown once as URI, QR code and base32, stored encrypted; a first code turns it on and hands out 10 recovery codes", async () => {
    await addUser(api, "enrol@example.com", "member");
    const s = await signIn(api, "enrol@example.com");
    expect((await s.call("GET", "/api/v1/auth/two-factor/")).json).toEqual({
      enabled: false,
      enabled_at: null,
      recovery_codes_remaining: 0,
      required_by_workspace: false,
    });
    const started = await s.call("POST", "/api/v1/auth/two-factor/enrolment/");
    expect(started.status).toBe(201);
    const { secret, otpauth_uri, qr_code } = started.json;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_uri).toStartWith("otpauth://totp/");
    expect(otpauth_uri).toContain(`secret=${secret}`);
    expect(otpauth_uri).toContain("enrol%40example.com");
    expect(otpauth_uri).toContain("period=30");
    expect(otpauth_uri).toContain("digits=6");
    expect(qr_code).toStartWith("data:image/svg+xml;base64,");
    expect(Buffer.from(qr_code.split(",")[1], "base64").toString()).toContain("<svg");
    const row = await api.db.selectFrom("two_factor_credentials").selectAll().executeTakeFirstOrThrow();
    expect(row.secret_encrypted).toStartWith("v1.");
    expect(row.secret_encrypted).not.toContain(secret);
    expect(row.enabled_at).toBeNull();

    const wrong = await s.call("POST", "/api/v1/auth/two-factor/enrolment/confirm/", { body: { code: "000000" === codeAt(secret) ? "111111" : "000000" } });
    expect([wrong.status, wrong.json.code]).toEqual([401, "INVALID_TWO_FACTOR_CODE"]);
    const confirmed = await s.call("POST", "/api/v1/auth/two-factor/enrolment/confirm/", { body: { code: nextCode(secret) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.json.recovery_codes).toHaveLength(10);
    expect(new Set(confirmed.json.recovery_codes).size).toBe(10);
    for (const c of confirmed.json.recovery_codes) expect(c).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/);
    const stored = await api.db.selectFrom("two_factor_recovery_codes").select("code_hash").execute();
    expect(stored.map((r) => r.code_hash).some((h) => confirmed.json.recovery_codes.some((c: string) => h.includes(c.replace("-", ""))))).toBe(false);

    const status = (await s.call("GET", "/api/v1/auth/two-factor/")).json;
    expect(status).toMatchObject({ enabled: true, recovery_codes_remaining: 10 });
    const again = await s.call("POST", "/api/v1/auth/two-factor/enrolment/");
    expect([again.status, again.json.code]).toEqual([409, "TWO_FACTOR_ALREADY_ENABLED"]);
    expect(again.text).not.toContain(secret);
    expect(await auditActions()).toContain("two_factor.enabled");
  });
});

describe("sign-in", () => {
  let secret: string;
  let recoveryCodes: string[];
  beforeAll(async () => {
    await addUser(api, "second@example.com", "member");
    ({ secret, recoveryCodes } = await enrol(await signIn(api, "second@example.com")));
  });

  test("a correct password answers 401 TWO_FACTOR_REQUIRED with a ticket and no session; the ticket and the code start one, once", async () => {
    const first = await login("second@example.com");
    expect([first.status, first.json.code]).toEqual([401, "TWO_FACTOR_REQUIRED"]);
    expect(first.headers.get("content-type")).toBe("application/problem+json");
    expect(cookieOf(first)).toBeNull();
    expect(first.json.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.json.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // A wrong password still answers the generic failure, never the second step.
    expect((await login("second@example.com", "not the password at all")).json.code).toBe("INVALID_CREDENTIALS");

    const done = await secondStep({ ticket: first.json.ticket, code: nextCode(secret) });
    expect(done.status).toBe(200);
    const cookie = cookieOf(done)!;
    expect(cookie).toBeTruthy();
    expect(done.json.user.email).toBe("second@example.com");
    expect((await sessionCaller(api, cookie, done.json.csrf_token)("GET", "/api/v1/links/")).status).toBe(200);

    const reused = await secondStep({ ticket: first.json.ticket, code: nextCode(secret) });
    expect([reused.status, reused.json.code]).toEqual([401, "TWO_FACTOR_TICKET_INVALID"]);
    expect(cookieOf(reused)).toBeNull();
  });

  test("a code once used is refused within its window, on a new ticket too", async () => {
    const code = nextCode(secret);
    const a = await login("second@example.com");
    expect((await secondStep({ ticket: a.json.ticket, code })).status).toBe(200);
    const b = await login("second@example.com");
    const replay = await secondStep({ ticket: b.json.ticket, code });
    expect([replay.status, replay.json.code]).toEqual([401, "INVALID_TWO_FACTOR_CODE"]);
    clock.advance(10_000); // still the same or the next step's window: the used step stays refused
    expect((await secondStep({ ticket: b.json.ticket, code })).json.code).toBe("INVALID_TWO_FACTOR_CODE");
    expect((await secondStep({ ticket: b.json.ticket, code: nextCode(secret) })).status).toBe(200);
  });

  test("a recovery code signs in once (case and dashes ignored) and is audited", async () => {
    const a = await login("second@example.com");
    const typed = recoveryCodes[0]!.toUpperCase().replace("-", " ");
    const ok = await secondStep({ ticket: a.json.ticket, recovery_code: typed });
    expect(ok.status).toBe(200);
    const b = await login("second@example.com");
    const again = await secondStep({ ticket: b.json.ticket, recovery_code: recoveryCodes[0]! });
    expect([again.status, again.json.code]).toEqual([401, "INVALID_TWO_FACTOR_CODE"]);
    expect(await auditActions()).toContain("two_factor.recovery_code_used");
    const s = sessionCaller(api, cookieOf(ok)!, ok.json.csrf_token);
    expect((await s("GET", "/api/v1/auth/two-factor/")).json.recovery_codes_remaining).toBe(9);
  });

  test("accepting an invite with an account that has two-factor joins, then asks for the code before any session", async () => {
    const other = await api.newWorkspace("Other workspace");
    await addUser(api, "inviter@example.com", "owner", { workspaceUuid: other.workspace_uuid });
    const inviter = await signIn(api, "inviter@example.com");
    const invite = await inviter.call("POST", "/api/v1/invites/", { body: { email: "second@example.com", role: "member" } });
    const token = new URL(invite.json.url).searchParams.get("token")!;
    const accepted = await api.call("POST", `/api/v1/auth/invites/${token}/accept/`, { key: null, body: { password: PASSWORD }, headers: { origin: BASE } });
    expect([accepted.status, accepted.json.code]).toEqual([401, "TWO_FACTOR_REQUIRED"]);
    expect(cookieOf(accepted)).toBeNull();
    const done = await secondStep({ ticket: accepted.json.ticket, code: nextCode(secret) });
    expect(done.status).toBe(200);
    expect(done.json.memberships.map((m: { workspace_name: string }) => m.workspace_name).sort()).toEqual(["Other workspace", "Test workspace"]);
  });

  test("a ticket expires after 5 minutes", async () => {
    const a = await login("second@example.com");
    clock.advance(5 * 60_000 + 1000);
    const late = await secondStep({ ticket: a.json.ticket, code: codeAt(secret) });
    expect([late.status, late.json.code]).toEqual([401, "TWO_FACTOR_TICKET_INVALID"]);
    expect((await secondStep({ ticket: "made-up", code: codeAt(secret) })).json.code).toBe("TWO_FACTOR_TICKET_INVALID");
  });

  test("a body with both or neither of code and recovery_code is a validation error", async () => {
    const a = await login("second@example.com");
    const both = await secondStep({ ticket: a.json.ticket, code: "123456", recovery_code: "abcde-fghjk" });
    const neither = await secondStep({ ticket: a.json.ticket });
    expect([both.status, both.json.code, neither.status, neither.json.code]).toEqual([400, "VALIDATION_ERROR", 400, "VALIDATION_ERROR"]);
  });
});

describe("throttle", () => {
  test("5 wrong codes refuse even the right one with 429 and Retry-After; a correct password does not forgive them; 15 minutes do", async () => {
    await addUser(api, "throttle@example.com", "member");
    const { secret } = await enrol(await signIn(api, "throttle@example.com"));
    const ticket = (await login("throttle@example.com")).json.ticket;
    clock.advance(30_000);
    const right = codeAt(secret);
    const wrong = right === "000000" ? "999999" : "000000";
    for (let i = 0; i < 5; i++) expect((await secondStep({ ticket, code: wrong })).json.code).toBe("INVALID_TWO_FACTOR_CODE");
    const refused = await secondStep({ ticket, code: right });
    expect([refused.status, refused.json.code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The password is right, so the ticket comes; the codes stay throttled.
    const fresh = await login("throttle@example.com");
    expect(fresh.json.code).toBe("TWO_FACTOR_REQUIRED");
    expect((await secondStep({ ticket: fresh.json.ticket, code: right })).status).toBe(429);
    expect(await auditActions()).toContain("two_factor.code_failed");
    clock.advance(15 * 60_000);
    const later = await login("throttle@example.com");
    expect((await secondStep({ ticket: later.json.ticket, code: codeAt(secret) })).status).toBe(200);
  });
});

describe("workspace requirement", () => {
  test("owners and admins require it (having it themselves); members without it reach only enrolment until they enrol; keys are unaffected", async () => {
    await addUser(api, "boss@example.com", "owner");
    await addUser(api, "plain@example.com", "member");
    const boss = await signIn(api, "boss@example.com");
    const refused = await boss.call("PUT", "/api/v1/workspace/two-factor/", { body: { required: true } });
    expect([refused.status, refused.json.code]).toEqual([409, "TWO_FACTOR_NOT_ENABLED"]);
    const plain = await signIn(api, "plain@example.com");
    expect((await plain.call("PUT", "/api/v1/workspace/two-factor/", { body: { required: true } })).json.code).toBe("INSUFFICIENT_SCOPE");
    const { secret: bossSecret } = await enrol(boss);
    const on = await boss.call("PUT", "/api/v1/workspace/two-factor/", { body: { required: true } });
    expect([on.status, on.json]).toEqual([200, { required: true }]);
    expect(await auditActions()).toContain("workspace.two_factor_required");

    // The member's existing session and a new one: only auth/ endpoints answer.
    const blocked = await plain.call("GET", "/api/v1/links/");
    expect([blocked.status, blocked.json.code]).toEqual([403, "TWO_FACTOR_ENROLMENT_REQUIRED"]);
    const again = await signIn(api, "plain@example.com");
    expect((await again.call("GET", "/api/v1/responses/")).json.code).toBe("TWO_FACTOR_ENROLMENT_REQUIRED");
    expect((await again.call("GET", "/api/v1/auth/two-factor/")).json).toMatchObject({ enabled: false, required_by_workspace: true });
    expect((await api.call("GET", "/api/v1/links/")).status).toBe(200); // the workspace's API key
    await enrol(again);
    expect((await again.call("GET", "/api/v1/links/")).status).toBe(200);

    // The owner's own session (two-factor on) was never blocked; turning it off is audited too.
    const bossBack = await secondStep({ ticket: (await login("boss@example.com")).json.ticket, code: nextCode(bossSecret) });
    const bossCall = sessionCaller(api, cookieOf(bossBack)!, bossBack.json.csrf_token);
    expect((await bossCall("PUT", "/api/v1/workspace/two-factor/", { body: { required: false } })).json).toEqual({ required: false });
    expect(await auditActions()).toContain("workspace.two_factor_not_required");
  });
});

describe("disable and new recovery codes", () => {
  test("both need the current code or the password; old recovery codes stop working; after disabling, the password alone signs in", async () => {
    await addUser(api, "off@example.com", "member");
    const s = await signIn(api, "off@example.com");
    const { secret, recoveryCodes } = await enrol(s);
    const badPassword = await s.call("POST", "/api/v1/auth/two-factor/recovery-codes/", { body: { password: "not the password at all" } });
    expect([badPassword.status, badPassword.json.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    const renewed = await s.call("POST", "/api/v1/auth/two-factor/recovery-codes/", { body: { code: nextCode(secret) } });
    expect(renewed.status).toBe(200);
    expect(renewed.json.recovery_codes).toHaveLength(10);
    expect(renewed.json.recovery_codes).not.toContain(recoveryCodes[0]);
    const t = await login("off@example.com");
    expect((await secondStep({ ticket: t.json.ticket, recovery_code: recoveryCodes[0]! })).json.code).toBe("INVALID_TWO_FACTOR_CODE");
    expect(await auditActions()).toContain("two_factor.recovery_codes_regenerated");

    const wrongCode = await s.call("POST", "/api/v1/auth/two-factor/disable/", { body: { code: "12345" } });
    expect([wrongCode.status, wrongCode.json.code]).toEqual([401, "INVALID_TWO_FACTOR_CODE"]);
    const off = await s.call("POST", "/api/v1/auth/two-factor/disable/", { body: { password: PASSWORD } });
    expect(off.status).toBe(200);
    expect(await auditActions()).toContain("two_factor.disabled");
    expect((await s.call("GET", "/api/v1/auth/two-factor/")).json.enabled).toBe(false);
    expect((await login("off@example.com")).status).toBe(200);
    const twice = await s.call("POST", "/api/v1/auth/two-factor/disable/", { body: { password: PASSWORD } });
    expect([twice.status, twice.json.code]).toEqual([409, "TWO_FACTOR_NOT_ENABLED"]);
  });
});

describe("sessions when it is turned on", () => {
  test("turning it on ends the account's other sessions (begun with the password alone) and keeps this one", async () => {
    await addUser(api, "elsewhere@example.com", "member");
    const other = await signIn(api, "elsewhere@example.com");
    const here = await signIn(api, "elsewhere@example.com");
    expect((await other.call("GET", "/api/v1/links/")).status).toBe(200);
    await enrol(here);
    expect((await other.call("GET", "/api/v1/links/")).status).toBe(401);
    expect((await here.call("GET", "/api/v1/links/")).status).toBe(200);
  });
});
