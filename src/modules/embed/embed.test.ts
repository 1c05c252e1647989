/**
 * The embed kit's server side (issue 29; docs/embedding.md), over the real app and database:
 * the workspace's allowed origins (`embed.allowed_origins` of `PATCH workspace/`: checked,
 * normalised, owners only), the intake page's `frame-ancestors` and `frame_origins` following them
 * (union with `EARSHOT_FRAME_ANCESTORS`; `'self'` only for the console's `?preview=1`), and
 * `/embed.js` itself: the real bundle, versioned, cached like every asset and within its budget.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import pkg from "../../../package.json" with { type: "json" };
import { BASE, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { addUser, signIn } from "../../../test/helpers/console-session.ts";
import { createAppDeps, type AppWiring } from "../../app-deps.ts";
import { loadConfig } from "../../config.ts";
import { buildEmbedScript, EMBED_ASSET_PATH, EMBED_BUDGET_GZIP_BYTES } from "../../http/embed-asset.ts";

let t: TestApi;
let owner: Awaited<ReturnType<typeof signIn>>;
beforeAll(async () => {
  t = await createTestApi();
  await addUser(t, "owner@example.com", "owner");
  await addUser(t, "member@example.com", "member");
  owner = await signIn(t, "owner@example.com");
  await t.call("POST", "/api/v1/links/", { body: { name: "Embedded", slug: "embedded", questions: [{ prompt: "Hi?", type: "text" }] } });
}, 120_000);
afterAll(() => t.close());

const wsSlug = () => t.ws.workspace_slug;
async function intakePage(query = "", app = t.app) {
  const res = await app.handle(new Request(`${BASE}/w/${wsSlug()}/i/embedded${query}`));
  const html = await res.text();
  const data = JSON.parse(/<script id="earshot-link" type="application\/json">([^<]*)<\/script>/.exec(html)?.[1] ?? "null");
  return {
    status: res.status,
    csp: res.headers.get("content-security-policy") ?? "",
    frameOrigins: data?.frame_origins as string[] | undefined,
    // The script that posts to the parent, loaded only where some origin may frame the page.
    hasBridge: html.includes('<script type="module" src="/assets/intake-embed.js'),
  };
}

describe("allowed origins (workspace settings)", () => {
  test("none by default: the page is framed by nobody and posts to nobody", async () => {
    expect((await t.call("GET", "/api/v1/workspace/")).json.embed).toEqual({ allowed_origins: [] });
    const page = await intakePage();
    expect([page.status, page.frameOrigins, page.hasBridge]).toEqual([200, [], false]);
    expect(page.csp).toContain("frame-ancestors 'none'");
    expect(page.csp).toContain("script-src 'self'");
  });

  test("an owner saves them normalised and deduplicated; the page's frame-ancestors and frame_origins follow", async () => {
    const r = await owner.call("PATCH", "/api/v1/workspace/", {
      body: { embed: { allowed_origins: ["HTTPS://Shop.Example.com:443/", "https://shop.example.com", "http://127.0.0.1:8081", "https://*.example.org"] } },
    });
    expect([r.status, r.json.embed]).toEqual([200, { allowed_origins: ["https://shop.example.com", "http://127.0.0.1:8081", "https://*.example.org"] }]);
    expect((await t.call("GET", "/api/v1/workspace/")).json.embed.allowed_origins).toHaveLength(3);
    const page = await intakePage();
    expect(page.csp).toContain("frame-ancestors https://shop.example.com http://127.0.0.1:8081 https://*.example.org;");
    expect(page.frameOrigins).toEqual(["https://shop.example.com", "http://127.0.0.1:8081", "https://*.example.org"]);
    expect(page.hasBridge).toBe(true);
    // The console's preview (records nothing) may also be framed by the box's own pages.
    const preview = await intakePage("?preview=1");
    expect(preview.csp).toContain("frame-ancestors 'self' https://shop.example.com");
    // Another workspace's page is not affected.
    const other = await t.newWorkspace("Other");
    await t.call("POST", "/api/v1/links/", { key: other.api_key, body: { name: "Other", slug: "other", questions: [{ prompt: "Hi?", type: "text" }] } });
    const res = await t.app.handle(new Request(`${BASE}/w/${other.workspace_slug}/i/other`));
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // An empty list allows nobody again.
    const cleared = await owner.call("PATCH", "/api/v1/workspace/", { body: { embed: { allowed_origins: [] } } });
    expect(cleared.json.embed.allowed_origins).toEqual([]);
    const after = await intakePage();
    expect([after.csp.includes("frame-ancestors 'none'"), after.hasBridge]).toEqual([true, false]);
  });

  test("a bad origin is refused with a pointer at it, nothing saved", async () => {
    for (const bad of ["shop.example.com", "https://shop.example.com/page", "*", "'self'", "https://a.example; script-src *"]) {
      const r = await owner.call("PATCH", "/api/v1/workspace/", { body: { embed: { allowed_origins: ["https://ok.example", bad] } } });
      expect([bad, r.status, r.json.code, r.json.errors?.[0]?.pointer]).toEqual([bad, 400, "VALIDATION_ERROR", "/embed/allowed_origins/1"]);
    }
    const tooMany = Array.from({ length: 51 }, (_, i) => `https://s${i}.example`);
    expect((await owner.call("PATCH", "/api/v1/workspace/", { body: { embed: { allowed_origins: tooMany } } })).status).toBe(400);
    expect((await owner.call("PATCH", "/api/v1/workspace/", { body: { embed: { origins: [] } } })).status).toBe(400);
    expect((await t.call("GET", "/api/v1/workspace/")).json.embed.allowed_origins).toEqual([]);
  });

  test("only workspace:write changes them (an API key or a member is refused)", async () => {
    const body = { embed: { allowed_origins: ["https://evil.example"] } };
    const byKey = await t.call("PATCH", "/api/v1/workspace/", { body });
    expect([byKey.status, byKey.json.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    const member = await signIn(t, "member@example.com");
    expect((await member.call("PATCH", "/api/v1/workspace/", { body })).status).toBe(403);
    expect((await intakePage()).csp).not.toContain("evil.example");
  });

  test("EARSHOT_FRAME_ANCESTORS is added to every workspace's list", async () => {
    const instance = await createTestApi({ EARSHOT_FRAME_ANCESTORS: "https://intranet.example.com 'self'" });
    try {
      await instance.call("POST", "/api/v1/links/", { body: { name: "Embedded", slug: "embedded", questions: [{ prompt: "Hi?", type: "text" }] } });
      const url = `${BASE}/w/${instance.ws.workspace_slug}/i/embedded`;
      expect((await instance.app.handle(new Request(url))).headers.get("content-security-policy")).toContain(
        "frame-ancestors https://intranet.example.com 'self';",
      );
      await addUser(instance, "o@example.com", "owner");
      await (await signIn(instance, "o@example.com")).call("PATCH", "/api/v1/workspace/", {
        body: { embed: { allowed_origins: ["https://shop.example.com"] } },
      });
      expect((await instance.app.handle(new Request(url))).headers.get("content-security-policy")).toContain(
        "frame-ancestors https://intranet.example.com 'self' https://shop.example.com;",
      );
    } finally {
      await instance.close();
    }
  });
});

describe("/embed.js", () => {
  let dataDir: string;
  let wiring: AppWiring;
  let script: Uint8Array;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-embed-"));
    const config = loadConfig({ EARSHOT_ALLOW_INSECURE_HTTP: "1", EARSHOT_PUBLIC_URL: "http://localhost", EARSHOT_LOG_LEVEL: "silent" }, { dataDir });
    script = await buildEmbedScript();
    wiring = await createAppDeps(config, { webAssets: new Map([[EMBED_ASSET_PATH, { body: script, contentType: "text/javascript; charset=utf-8" }]]) });
  }, 120_000);
  afterAll(async () => {
    await wiring?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const get = (p: string, headers: Record<string, string> = {}) => wiring.app.handle(new Request(`http://localhost${p}`, { headers }));

  test(`is the bundle of web/embed, versioned, within ${EMBED_BUDGET_GZIP_BYTES} bytes minified and gzipped, with no third-party URL`, async () => {
    const gzipped = gzipSync(script, { level: 9 }).byteLength;
    console.log(`embed.js: ${script.byteLength} bytes minified, ${gzipped} gzipped (budget ${EMBED_BUDGET_GZIP_BYTES})`);
    expect(gzipped).toBeLessThanOrEqual(EMBED_BUDGET_GZIP_BYTES);
    const text = new TextDecoder().decode(script);
    expect(text.startsWith(`/*! Earshot embed.js ${pkg.version} */\n`)).toBe(true);
    expect(text).toContain(JSON.stringify(pkg.version));
    expect(text).not.toMatch(/\bimport\b|https?:\/\/(?!\/)/);
    expect(text).toContain('allow:"microphone"');
  });

  test("is served like every asset: JavaScript, ETag and 304, five minutes' caching, compressed", async () => {
    const res = await get("/embed.js", { "accept-encoding": "gzip" });
    expect([res.status, res.headers.get("content-type"), res.headers.get("cache-control"), res.headers.get("content-encoding")]).toEqual([
      200,
      "text/javascript; charset=utf-8",
      "public, max-age=300",
      "gzip",
    ]);
    const etag = res.headers.get("etag")!;
    expect((await get("/embed.js", { "accept-encoding": "gzip", "if-none-match": etag })).status).toBe(304);
    const plain = await get("/embed.js");
    expect(Buffer.from(await plain.arrayBuffer()).equals(Buffer.from(script))).toBe(true);
  });

  test("the console's preview page loads it for a link path of this server, and nothing else", async () => {
    const ok = await get("/embed/preview/?link=%2Fw%2Facme%2Fi%2Fnps&mode=popup");
    const html = await ok.text();
    expect(ok.status).toBe(200);
    expect(html).toContain('<script src="/embed.js" data-earshot-link="/w/acme/i/nps" data-mode="popup" data-preview></script>');
    expect(ok.headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
    for (const bad of ["?link=https%3A%2F%2Fevil.example%2Fi%2Fx&mode=inline", "?link=%2Fi%2Fx%22%3E&mode=inline", "?link=%2Fi%2Fx&mode=evil"]) {
      const r = await get(`/embed/preview/${bad}`);
      expect([bad, r.status, (await r.json()).code]).toEqual([bad, 404, "NOT_FOUND"]);
    }
  });
});
