/**
 * Console accounts over real processes and sockets (DESIGN §2, §10): first start prints the setup
 * URL and makes the default workspace `enterprise`; the setup token works once; `earshot user
 * create|list|reset-password` and `workspace update` keep their contract; the cookie gets `Secure`
 * behind a trusted HTTPS proxy; passwords never appear in the server's output or in responses.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-accounts-"));
const OWNER_PASSWORD = "owner passphrase 7f3a9c";
const CLI_PASSWORD = "cli made passphrase 42b1";
const RESET_PASSWORD = "reset passphrase 99d0e1";
let server: RunningServer;
const seen: string[] = [];

beforeAll(async () => {
  server = await startServer({ dataDir, env: { EARSHOT_LOG_LEVEL: "debug", EARSHOT_TRUSTED_PROXIES: "127.0.0.1" } });
});
afterAll(async () => {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function post(urlPath: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(server.baseUrl + urlPath, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.baseUrl, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  seen.push(text);
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

test("first start: enterprise default workspace, a setup URL that works once, a Secure cookie behind an HTTPS proxy", async () => {
  const out = server.output();
  const key = /sk_live_[A-Za-z0-9]{40}/.exec(out)![0];
  const setupUrl = /(http:\/\/localhost:\d+\/console\/setup\/\?token=[A-Za-z0-9_-]+)/.exec(out)?.[1];
  expect(setupUrl).toBeDefined();
  const ws = await (await fetch(`${server.baseUrl}/api/v1/workspace/`, { headers: { authorization: `Bearer ${key}` } })).json();
  expect(ws.plan).toBe("enterprise");
  expect(ws.limits.links).toBeNull();

  const token = new URL(setupUrl!).searchParams.get("token")!;
  const body = { token, name: "Olive Owner", email: "olive@example.com", password: OWNER_PASSWORD };
  const short = await post("/api/v1/auth/setup/", { ...body, password: "too short" });
  expect([short.status, short.json.errors[0].pointer]).toEqual([400, "/password"]);
  const created = await post("/api/v1/auth/setup/", body, { "x-forwarded-proto": "https" });
  expect(created.status).toBe(201);
  expect(created.json).toMatchObject({ role: "owner", current_workspace_uuid: ws.uuid, user: { email: "olive@example.com" } });
  const cookie = created.headers.get("set-cookie")!;
  expect(cookie).toMatch(/^earshot_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\//);
  expect(cookie).toContain("Secure"); // the trusted proxy said the browser used HTTPS
  const again = await post("/api/v1/auth/setup/", { ...body, email: "mallory@example.com" });
  expect([again.status, again.json.code]).toEqual([404, "NOT_FOUND"]);

  const plain = await post("/api/v1/auth/login/", { email: "olive@example.com", password: OWNER_PASSWORD });
  expect(plain.status).toBe(200);
  expect(plain.headers.get("set-cookie")).not.toContain("Secure");
  expect((await post("/api/v1/auth/login/", { email: "olive@example.com", password: "a wrong passphrase" })).status).toBe(401);

  const health = await (await fetch(`${server.baseUrl}/healthz`)).json();
  expect(health).toMatchObject({
    status: "ok",
    models: { asr: { id: "whisper-tiny-random", status: "installed" } },
    jobs: { pending: 0, running: 0, failed: 0 },
  });
  expect(["installed", "missing"]).toContain(health.models.sentiment.status);
});

test("user create, list, reset-password and workspace update keep their contract", async () => {
  const ws = JSON.parse((await runCli(["workspace", "list", "--json"], { dataDir })).stdout)[0];
  const created = await runCli(["user", "create", "--email", "Cleo@Example.com", "--name", "Cleo", "--role", "admin", "--password-stdin", "--json"], {
    dataDir,
    stdin: `${CLI_PASSWORD}\n`,
  });
  expect(created.code).toBe(0);
  const user = JSON.parse(created.stdout);
  expect(user).toMatchObject({ email: "Cleo@Example.com", name: "Cleo", role: "admin", workspace_uuid: ws.uuid, reset_url: null });
  expect(created.stdout).not.toContain(CLI_PASSWORD);
  expect((await post("/api/v1/auth/login/", { email: "cleo@example.com", password: CLI_PASSWORD })).json.role).toBe("admin");

  const dup = await runCli(["user", "create", "--email", "cleo@example.com"], { dataDir });
  expect(dup.code).not.toBe(0);
  const badRole = await runCli(["user", "create", "--email", "x@example.com", "--role", "root"], { dataDir });
  expect(badRole.code).not.toBe(0);
  const short = await runCli(["user", "create", "--email", "y@example.com", "--password-stdin"], { dataDir, stdin: "short\n" });
  expect([short.code === 0, short.stderr]).toEqual([false, expect.stringContaining("12")]);

  const noPassword = JSON.parse((await runCli(["user", "create", "--email", "dan@example.com", "--json"], { dataDir })).stdout);
  expect(noPassword.role).toBe("member"); // the workspace has an owner already
  expect(noPassword.reset_url).toMatch(/^http:\/\/localhost:\d+\/console\/reset\/\?token=/);

  const list = JSON.parse((await runCli(["user", "list", "--json"], { dataDir })).stdout);
  expect(list.map((u: { email: string }) => u.email)).toEqual(["olive@example.com", "Cleo@Example.com", "dan@example.com"]);
  expect(list[0].memberships).toEqual([{ workspace_uuid: ws.uuid, role: "owner" }]);
  expect(JSON.stringify(list)).not.toMatch(/password|argon2/);

  const reset = await runCli(["user", "reset-password", "--email", "DAN@example.com"], { dataDir });
  expect(reset.code).toBe(0);
  const token = new URL(reset.stdout.trim()).searchParams.get("token")!;
  expect((await post("/api/v1/auth/password-reset/", { token, password: RESET_PASSWORD })).status).toBe(200);
  expect((await post("/api/v1/auth/password-reset/", { token, password: RESET_PASSWORD })).status).toBe(404);
  expect((await post("/api/v1/auth/login/", { email: "dan@example.com", password: RESET_PASSWORD })).json.role).toBe("member");
  expect((await runCli(["user", "reset-password", "--email", "nobody@example.com"], { dataDir })).code).not.toBe(0);

  const update = await runCli(["workspace", "update", ws.uuid, "--plan", "pro", "--links-limit", "3", "--requests-per-minute", "50"], { dataDir });
  expect(update.code).toBe(0);
  expect(update.stdout).toContain("plan pro, links 3, 50 requests/min");
  const unlimited = await runCli(["workspace", "update", ws.uuid, "--links-limit", "unlimited"], { dataDir });
  expect(unlimited.stdout).toContain("links unlimited");
  expect((await runCli(["workspace", "update", ws.uuid, "--plan", "gold"], { dataDir })).code).not.toBe(0);
  expect((await runCli(["workspace", "update", "00000000-0000-4000-8000-000000000000", "--plan", "pro"], { dataDir })).code).not.toBe(0);
  expect((await runCli(["workspace", "update", ws.uuid, "--links-limit", "many"], { dataDir })).code).not.toBe(0);
});

test("no password ever appears in the server's output or in an answer", async () => {
  // debug-level logs were on for every request above
  const everything = server.output() + seen.join("\n");
  for (const pw of [OWNER_PASSWORD, CLI_PASSWORD, RESET_PASSWORD, "a wrong passphrase"]) expect(everything).not.toContain(pw);
  expect(everything).not.toContain("argon2");
});
