/**
 * Security headers (issue 9, Low): a real `earshot serve` sends Content-Security-Policy,
 * X-Content-Type-Options and Referrer-Policy on pages, assets, API answers, problems and
 * redirects; Chromium refuses to show the intake page inside another origin's iframe, unless
 * `EARSHOT_FRAME_ANCESTORS` names that origin.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Server } from "bun";
import type { BrowserContext } from "playwright-core";
import { launchBrowser } from "../../test/helpers/browser.ts";
import { runCli, startServer, type RunningServer } from "../../test/helpers/process.ts";
import { contentSecurityPolicy, frameAncestorsProblem, PAGE_DIRECTIVES } from "./security-headers.ts";

const LINK_NAME = "Framing check";

type Running = { server: RunningServer; dataDir: string; key: string; pageUrl: string; slug: string; wsSlug: string };
const running: Running[] = [];
let parent: Server<undefined>;
let browser: BrowserContext | undefined;

/** A server with one workspace and one link; `env` as for startServer. */
async function serverWithLink(env: Record<string, string> = {}): Promise<Running> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-headers-"));
  const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Headers", "--json"], { dataDir })).stdout);
  const server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1", ...env } });
  const res = await fetch(`${server.baseUrl}/api/v1/links/`, {
    method: "POST",
    headers: { authorization: `Bearer ${ws.api_key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: LINK_NAME, questions: [{ prompt: "Anything to add?", type: "text" }] }),
  });
  const link = (await res.json()) as { slug: string };
  const r = {
    server,
    dataDir,
    key: ws.api_key,
    slug: link.slug,
    wsSlug: ws.workspace_slug,
    pageUrl: `${server.baseUrl}/w/${ws.workspace_slug}/i/${link.slug}`,
  };
  running.push(r);
  return r;
}

beforeAll(() => {
  // Another origin (its own port) whose page frames whatever `?src=` names.
  parent = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const src = new URL(req.url).searchParams.get("src") ?? "";
      return new Response(
        `<!doctype html><title>Parent</title><iframe title="embedded" src="${src.replace(/"/g, "&quot;")}" width="600" height="400"></iframe>`,
        {
          headers: { "content-type": "text/html" },
        },
      );
    },
  });
});
afterAll(async () => {
  await browser?.close();
  parent?.stop(true);
  for (const r of running) {
    await r.server.stop();
    fs.rmSync(r.dataDir, { recursive: true, force: true });
  }
});

function expectSecurityHeaders(what: string, res: Response, frameAncestors = "'none'") {
  const csp = res.headers.get("content-security-policy") ?? "";
  expect([what, csp]).toEqual([what, expect.stringContaining("default-src 'none'")]);
  expect([what, csp]).toEqual([what, expect.stringContaining(`frame-ancestors ${frameAncestors}`)]);
  expect([what, res.headers.get("x-content-type-options")]).toEqual([what, "nosniff"]);
  expect([what, res.headers.get("referrer-policy")]).toEqual([what, "same-origin"]);
}

test("pages, assets, API answers, problems and redirects carry the security headers", async () => {
  const { server, key, pageUrl } = await serverWithLink();
  const page = await fetch(pageUrl);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  expectSecurityHeaders("intake page", page);
  const pageCsp = page.headers.get("content-security-policy")!;
  expect(pageCsp).toContain("script-src 'self'");
  expect(pageCsp).toContain("img-src * data: blob:");
  expect(pageCsp).not.toContain("unsafe-inline");

  const missing = await fetch(`${server.baseUrl}/w/nobody/i/nothing`);
  expect(missing.status).toBe(404);
  expectSecurityHeaders("unknown link page", missing);

  const asset = await fetch(`${server.baseUrl}/assets/intake.js`);
  expect(asset.status).toBe(200);
  expectSecurityHeaders("asset", asset);

  const api = await fetch(`${server.baseUrl}/api/v1/links/`, { headers: { authorization: `Bearer ${key}` } });
  expect(api.status).toBe(200);
  expectSecurityHeaders("API answer", api);
  expect(api.headers.get("content-security-policy")).toContain("sandbox");

  const problem = await fetch(`${server.baseUrl}/api/v1/links/`);
  expect([problem.status, problem.headers.get("content-type")]).toEqual([401, "application/problem+json"]);
  expectSecurityHeaders("problem", problem);

  const notFound = await fetch(`${server.baseUrl}/api/v1/nothing-here/`);
  expect(notFound.status).toBe(404);
  expectSecurityHeaders("unknown API path", notFound);

  const redirect = await fetch(`${server.baseUrl}/api/v1/links`, { redirect: "manual" });
  expect(redirect.status).toBe(301);
  expectSecurityHeaders("redirect", redirect);

  // The console's own policy: recordings and the operator's card media, never inline code; the
  // shell's <meta> says the same, less frame-ancestors (test/e2e/console-csp.test.ts runs it in Chromium).
  const shell = await fetch(`${server.baseUrl}/console/responses/x/`);
  expectSecurityHeaders("console", shell);
  const consoleCsp = shell.headers.get("content-security-policy")!;
  expect(consoleCsp).toContain("media-src 'self' http: https:");
  expect(consoleCsp).toContain("img-src 'self' http: https: data:");
  expect(consoleCsp).not.toContain("unsafe-inline");
  const meta = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(await shell.text())?.[1];
  expect(meta).toBe(consoleCsp.replace("; frame-ancestors 'none'", ""));

  const reference = await fetch(`${server.baseUrl}/api/docs/`);
  expect(reference.status).toBe(200);
  expectSecurityHeaders("reference page", reference);
  expect(reference.headers.get("content-security-policy")).toContain("style-src 'self'");
}, 120_000);

test("the intake page cannot be framed by another origin unless EARSHOT_FRAME_ANCESTORS names it", async () => {
  const parentOrigin = `http://127.0.0.1:${parent.port}`;
  const refused = running[0] ?? (await serverWithLink());
  const allowed = await serverWithLink({ EARSHOT_FRAME_ANCESTORS: parentOrigin });
  expectSecurityHeaders("allowed page", await fetch(allowed.pageUrl), parentOrigin);
  // Only the intake page follows the setting; the API stays unframeable.
  expectSecurityHeaders("API of the allowing server", await fetch(`${allowed.server.baseUrl}/api/v1/links/`));

  browser = await launchBrowser({ microphone: false });
  const framedHeading = async (pageUrl: string) => {
    const tab = await browser!.newPage();
    try {
      await tab.goto(`${parentOrigin}/?src=${encodeURIComponent(pageUrl)}`, { waitUntil: "load" });
      const frame = tab.frames().find((f) => f !== tab.mainFrame());
      expect(frame).toBeDefined();
      await Bun.sleep(300);
      const heading = await frame!
        .locator("h1")
        .first()
        .textContent({ timeout: 2_000 })
        .catch(() => null);
      return { url: frame!.url(), heading: heading?.trim() ?? null };
    } finally {
      await tab.close();
    }
  };
  // Chromium replaces a refused frame with its own error page ("… is blocked").
  const blocked = await framedHeading(refused.pageUrl);
  expect(blocked.heading).not.toBe(LINK_NAME);
  expect(blocked.url).not.toBe(refused.pageUrl);
  expect(await framedHeading(allowed.pageUrl)).toEqual({ url: allowed.pageUrl, heading: LINK_NAME });
}, 120_000);

test("the CSP builder merges directives and the frame-ancestors setting is checked", () => {
  expect(contentSecurityPolicy(PAGE_DIRECTIVES, { "style-src": "'self' 'sha256-abc='" })).toContain("style-src 'self' 'sha256-abc='");
  expect(contentSecurityPolicy({ "default-src": "'none'", sandbox: "" })).toBe("default-src 'none'; sandbox");
  for (const ok of ["'none'", "'self'", "https://intranet.example.com", "'self' https://*.example.com:8443"]) expect(frameAncestorsProblem(ok)).toBeNull();
  for (const bad of ["*; script-src *", "'unsafe-inline'", "javascript:alert(1)"]) expect(frameAncestorsProblem(bad)).not.toBeNull();
});
