/**
 * `earshot user reset-two-factor --email …` over real processes and sockets (issue 28; docs/console.md
 * "Two-factor authentication"): a user who set up two-factor authentication and lost it signs in
 * with the password alone after the operator ran it; an unknown email fails with a message.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Secret, TOTP } from "otpauth";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-two-factor-"));
const PASSWORD = "lost phone passphrase 31";
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ dataDir });
});
afterAll(async () => {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(server.baseUrl + urlPath, {
    method,
    headers: { "content-type": "application/json", origin: server.baseUrl, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, cookie: /earshot_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? null };
}

test("reset-two-factor removes a user's second factor: the password alone signs in again; an unknown email fails", async () => {
  const created = await runCli(["user", "create", "--email", "mia@example.com", "--password-stdin"], { dataDir, stdin: `${PASSWORD}\n` });
  expect(created.code).toBe(0);
  const signed = await call("POST", "/api/v1/auth/login/", { email: "mia@example.com", password: PASSWORD });
  const session = { cookie: `earshot_session=${signed.cookie}`, "x-csrf-token": signed.json.csrf_token };
  const started = await call("POST", "/api/v1/auth/two-factor/enrolment/", undefined, session);
  const code = TOTP.generate({ secret: Secret.fromBase32(started.json.secret) });
  expect((await call("POST", "/api/v1/auth/two-factor/enrolment/confirm/", { code }, session)).status).toBe(200);
  expect((await call("POST", "/api/v1/auth/login/", { email: "mia@example.com", password: PASSWORD })).json.code).toBe("TWO_FACTOR_REQUIRED");

  const reset = await runCli(["user", "reset-two-factor", "--email", "MIA@example.com"], { dataDir });
  expect([reset.code, reset.stdout]).toEqual([0, expect.stringContaining("is removed")]);
  const after = await call("POST", "/api/v1/auth/login/", { email: "mia@example.com", password: PASSWORD });
  expect(after.status).toBe(200);
  expect(after.cookie).toBeTruthy();
  const again = await runCli(["user", "reset-two-factor", "--email", "mia@example.com"], { dataDir });
  expect([again.code, again.stdout]).toEqual([0, expect.stringContaining("nothing changed")]);
  const unknown = await runCli(["user", "reset-two-factor", "--email", "nobody@example.com"], { dataDir });
  expect([unknown.code === 0, unknown.stderr]).toEqual([false, expect.stringContaining("No user with the email nobody@example.com")]);
}, 120_000);
