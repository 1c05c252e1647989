/**
 * @module test/e2e/console.test
 * The operator console in Chromium against real server processes (issue 10, DESIGN §10): the
 * walk of console-walk.ts from source (with screenshots of every page under
 * `test-results/console/`) and against the compiled binary when `EARSHOT_BIN` is set; the
 * console's shell routes; the first load stays under 100 KB compressed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { runConsoleWalk } from "./console-walk.ts";
import { makeDataDir, removeDir } from "./voice-flow.ts";

const BINARY = process.env.EARSHOT_BIN ? path.resolve(process.env.EARSHOT_BIN) : null;
const WALK_TIMEOUT_MS = 240_000;

describe("console shell", () => {
  let dataDir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dataDir = await makeDataDir();
    server = await startServer({ dataDir });
  });
  afterAll(async () => {
    await server?.stop();
    await removeDir(dataDir);
  });

  test("/ redirects to /console/, and every /console/ path serves the shell with its local assets", async () => {
    const root = await fetch(`${server.baseUrl}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/console/");
    for (const p of ["/console", "/console/", "/console/keys/", "/console/webhooks/0b6f0c1e-1111-4222-8333-944455556666/", "/console/no/such/page/"]) {
      const res = await fetch(`${server.baseUrl}${p}`);
      expect({ p, status: res.status, type: res.headers.get("content-type") }).toEqual({ p, status: 200, type: "text/html; charset=utf-8" });
      const html = await res.text();
      expect(html).toContain('<script type="module" src="/assets/console.js?v=');
      expect(html).toContain("script-src 'self'");
    }
  });

  test("first load (shell, script, stylesheet) is under 100 KB gzip-compressed", async () => {
    const html = await (await fetch(`${server.baseUrl}/console/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBe(2);
    let total = Bun.gzipSync(new TextEncoder().encode(html)).byteLength;
    for (const a of assets) {
      const res = await fetch(`${server.baseUrl}${a}`);
      expect(res.status).toBe(200);
      total += Bun.gzipSync(new Uint8Array(await res.arrayBuffer())).byteLength;
    }
    expect(total).toBeLessThan(100 * 1024);
  });
});

describe("console walk", () => {
  test(
    "from source: setup, sign-in, API keys, webhooks, a viewer, password reset, sign-out (screenshots in test-results/console/)",
    async () => {
      await runConsoleWalk({ screenshots: true });
    },
    WALK_TIMEOUT_MS,
  );

  test.skipIf(!BINARY)(
    `single executable${BINARY ? "" : " (skipped: set EARSHOT_BIN)"}: the same walk`,
    async () => {
      await runConsoleWalk({ bin: [BINARY!] });
    },
    WALK_TIMEOUT_MS,
  );
});
