/**
 * @module test/e2e/console.test
 * The operator console in Chromium against real server processes (issue 10, DESIGN §10): the
 * walk of console-walk.ts from source (with screenshots of every page under
 * `test-results/console/`) and against the compiled binary when `EARSHOT_BIN` is set; the
 * console's shell routes; the first load stays under 100 KB compressed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { launchBrowser } from "../helpers/browser.ts";
import { createLanNamespace, lanNamespaceUnavailable, type LanNamespace } from "../helpers/lan-namespace.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { expectAccessible, runConsoleWalk } from "./console-walk.ts";
import { makeDataDir, removeDir } from "./voice-flow.ts";

/** Why the browser cannot be put on "another machine" here (a network namespace needs root), or null. */
const NO_LAN = lanNamespaceUnavailable();
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

describe("sign-in over plain HTTP from another machine", () => {
  let dataDir: string;
  let server: RunningServer;
  let lan: LanNamespace | null = null;
  beforeAll(async () => {
    dataDir = await makeDataDir();
    server = await startServer({ dataDir });
    // Chromium runs in a network namespace of the test's own, joined by a veth pair: the server
    // (listening on 0.0.0.0) sees a peer that is not loopback, as from another machine on the LAN.
    if (!NO_LAN) lan = createLanNamespace();
  });
  afterAll(async () => {
    lan?.close();
    await server?.stop();
    await removeDir(dataDir);
  });

  test.skipIf(NO_LAN !== null)(`the sign-in page says plainly that HTTPS is required${NO_LAN ? ` (skipped: ${NO_LAN})` : ""}`, async () => {
    const browser = await launchBrowser({ microphone: false, bypassCSP: true, executablePath: lan!.chromiumPath });
    try {
      const page = await browser.newPage();
      await page.goto(`http://${lan!.hostAddress}:${server.port}/console/login/`);
      // Before anything is typed: the page was opened over plain HTTP from elsewhere.
      await page.getByText("Sign-in needs HTTPS.").waitFor();
      await page.getByLabel("Email").fill("ada@example.com");
      await page.getByLabel("Password").fill("correct horse battery");
      await page.getByRole("button", { name: "Sign in" }).click();
      const alert = page.getByRole("alert");
      await alert.waitFor();
      expect(await alert.textContent()).toContain("Sign-in needs HTTPS.");
      expect(await alert.textContent()).toContain("https://");
      await expectAccessible(page, "sign-in refused over HTTP");
    } finally {
      await browser.close();
    }
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
