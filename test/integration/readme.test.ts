/**
 * The README's promises, checked: exactly two set-up commands, both plain npm (a machine with only
 * Node and npm has no `bun` on PATH), CI runs the same test command, and the start command — with
 * the port and public URL set as the README says — serves and prints the key and the console
 * setup URL on the first start.
 */
import { afterAll, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FIXTURE_MODELS_DIR, freePort, REPO_DIR } from "../helpers/process.ts";

const readme = fs.readFileSync(path.join(REPO_DIR, "README.md"), "utf8");
const setUp = readme.slice(readme.indexOf("## Set up on a fresh machine"), readme.indexOf("\n## ", readme.indexOf("## Set up on a fresh machine") + 5));
const commands = [...setUp.matchAll(/```sh\n([^`]+)```/g)].map((m) => m[1]!.trim());
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-readme-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test("the set-up section has exactly two commands, plain npm, and CI runs the same test command", () => {
  expect(commands).toEqual(["npm ci && npm start", "npm ci && npm test"]);
  const ci = fs.readFileSync(path.join(REPO_DIR, ".ci", "run"), "utf8");
  expect(ci).toMatch(/^npm ci\b/m);
  expect(ci).toMatch(/^npm test$/m);
  // Every inline command the README offers runs through npm or npx, never a bare `bun`.
  for (const [, code] of readme.matchAll(/`([^`\n]+)`/g)) expect(/^bun\b/.test(code!)).toBe(false);
});

test("npm start, with EARSHOT_PORT and EARSHOT_PUBLIC_URL as the README says, serves and prints the key and the setup URL", async () => {
  const port = await freePort();
  const publicUrl = `http://feedback.test:${port}`;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("EARSHOT_") && !k.startsWith("npm_")) env[k] = v;
  Object.assign(env, { EARSHOT_PORT: String(port), EARSHOT_PUBLIC_URL: publicUrl, EARSHOT_MODELS_DIR: FIXTURE_MODELS_DIR, EARSHOT_LOG_LEVEL: "warn" });
  // `npm start -- --data DIR`: the README's start command, with the data kept out of the checkout.
  const child = spawn("npm", ["start", "--", "--data", dataDir], { cwd: REPO_DIR, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  try {
    let status = 0;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && status !== 200; ) {
      status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await Bun.sleep(200);
    }
    expect(status).toBe(200);
    for (const deadline = Date.now() + 5_000; Date.now() < deadline && !out.includes("/console/setup/"); ) await Bun.sleep(100);
    expect(out).toMatch(/sk_live_[A-Za-z0-9]{40}/);
    expect(out).toContain(`${publicUrl}/console/setup/?token=`);
    expect(out).toContain(`${publicUrl}/api/v1/links/`);
  } finally {
    process.kill(-child.pid!, "SIGTERM");
  }
}, 90_000);
