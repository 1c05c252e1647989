/**
 * Web assets travel compressed and cache well (issue 14, page weight): brotli or gzip as the
 * browser accepts, `Vary`, ETag/304, a year's immutable caching for versioned URLs, and the
 * intake page's first load (HTML + script + stylesheet, as transferred with brotli) under 20 KB.
 * The real app over the real bundles of web/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { App } from "../app.ts";
import { createAppDeps, type AppWiring } from "../app-deps.ts";
import { loadConfig } from "../config.ts";
import { createWorkspace } from "../modules/workspaces/service.ts";
import { loadWebAssets } from "./web-assets.ts";
import { assetVersion, createAssetServer, negotiateEncoding, withCompressedVariants } from "./asset-delivery.ts";

let dataDir: string;
let wiring: AppWiring;
let app: App;
let assets: Awaited<ReturnType<typeof loadWebAssets>>;
let apiKey: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-assets-"));
  const config = loadConfig({ EARSHOT_ALLOW_INSECURE_HTTP: "1", EARSHOT_PUBLIC_URL: "http://localhost", EARSHOT_LOG_LEVEL: "silent" }, { dataDir });
  assets = await loadWebAssets();
  wiring = await createAppDeps(config, { webAssets: assets });
  app = wiring.app;
  apiKey = (await createWorkspace(wiring.db, { name: "Assets", plan: "enterprise" })).api_key;
}, 120_000);
afterAll(async () => {
  await wiring.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { headers }));

describe("asset delivery", () => {
  test("brotli, gzip or none as accepted, with Vary; the bytes are the asset's", async () => {
    const original = assets.get("/assets/intake.js")!.body as Uint8Array;
    const br = await get("/assets/intake.js", { "accept-encoding": "gzip, deflate, br" });
    expect([br.status, br.headers.get("content-encoding"), br.headers.get("vary")]).toEqual([200, "br", "Accept-Encoding"]);
    const brBytes = new Uint8Array(await br.arrayBuffer());
    expect(brBytes.length).toBeLessThan(original.length / 2);
    expect(Buffer.from(brotliDecompressSync(brBytes)).equals(Buffer.from(original))).toBe(true);
    const gz = await get("/assets/intake.js", { "accept-encoding": "gzip" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(Buffer.from(gunzipSync(new Uint8Array(await gz.arrayBuffer()))).equals(Buffer.from(original))).toBe(true);
    const plain = await get("/assets/intake.js", { "accept-encoding": "identity" });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(new Uint8Array(await plain.arrayBuffer()).length).toBe(original.length);
    expect((await get("/assets/console.css", { "accept-encoding": "br;q=0, gzip" })).headers.get("content-encoding")).toBe("gzip");
  });

  test("a URL naming the content version is cached for a year; ETag answers 304", async () => {
    const version = assetVersion(assets.get("/assets/console.js")!.body);
    const versioned = await get(`/assets/console.js?v=${version}`, { "accept-encoding": "br" });
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const stale = await get("/assets/console.js?v=000000000000", { "accept-encoding": "br" });
    expect(stale.headers.get("cache-control")).toBe("public, max-age=300");
    const etag = versioned.headers.get("etag")!;
    expect(etag).toBe(`"${version}-br"`);
    const again = await get(`/assets/console.js?v=${version}`, { "accept-encoding": "br", "if-none-match": etag });
    expect([again.status, await again.text()]).toEqual([304, ""]);
    // Another encoding is another representation.
    expect((await get(`/assets/console.js?v=${version}`, { "accept-encoding": "gzip", "if-none-match": etag })).status).toBe(200);
  });

  test("the intake page's first load (HTML, script, stylesheet) is under 20 KB as transferred with brotli; its assets cache for a year", async () => {
    const created = await app.handle(
      new Request("http://localhost/api/v1/links/", {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: "Tell us about your visit",
          settings: { description: "Three quick questions; it takes a minute." },
          questions: [
            { prompt: "What brought you here today?", type: "text" },
            { prompt: "How likely are you to recommend us?", type: "rating", configuration: { scale_type: "nps" } },
            { prompt: "Tell us in your own words", type: "voice_text_fallback" },
          ],
        }),
      }),
    );
    const link = await created.json();
    const browser = { "accept-encoding": "gzip, deflate, br, zstd", "accept-language": "en" };
    const pageRes = await get(new URL(link.public_url).pathname, browser);
    expect([pageRes.status, pageRes.headers.get("content-encoding"), pageRes.headers.get("vary")]).toEqual([200, "br", "Accept-Encoding"]);
    const pageBytes = new Uint8Array(await pageRes.arrayBuffer());
    const html = brotliDecompressSync(pageBytes).toString("utf8");
    const urls = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));
    expect(urls.some((u) => u.startsWith("/assets/intake.js"))).toBe(true);
    expect(urls.some((u) => u.startsWith("/assets/intake.css"))).toBe(true);
    let total = pageBytes.length;
    // A script's static imports (a chunk its code shares) are part of the first load too.
    for (const u of urls.filter((x) => x.startsWith("/assets/intake.js"))) {
      const script = await (await get(u, {})).text();
      for (const m of script.matchAll(/(?:^|[;}\s])import[^"'()]*?from\s*["']\.\/([^"']+)["']/g)) urls.push(`/assets/${m[1]}`);
    }
    for (const u of urls) {
      const r = await get(u, browser);
      // The page names each asset's content, so a returning respondent's browser asks for nothing.
      expect([u, r.status, r.headers.get("content-encoding"), r.headers.get("cache-control")]).toEqual([u, 200, "br", "public, max-age=31536000, immutable"]);
      total += (await r.arrayBuffer()).byteLength;
    }
    expect(total).toBeLessThan(20 * 1024);
  });

  test("build-time variants are served as they are; negotiation honours q=0", () => {
    const body = new TextEncoder().encode("body { color: red; }\n".repeat(100));
    const withVariants = withCompressedVariants(new Map([["/assets/x.css", { body, contentType: "text/css; charset=utf-8" }]]));
    expect([...withVariants.keys()].sort()).toEqual(["/assets/x.css", "/assets/x.css.br", "/assets/x.css.gz"]);
    const marker = new Uint8Array([1, 2, 3]);
    withVariants.set("/assets/x.css.br", { body: marker, contentType: "text/css; charset=utf-8" });
    const server = createAssetServer(withVariants);
    expect(server.paths).toEqual(["/assets/x.css"]);
    return server
      .serve("/assets/x.css", new Request("http://localhost/assets/x.css", { headers: { "accept-encoding": "br" } }))
      .arrayBuffer()
      .then((b) => {
        expect([...new Uint8Array(b)]).toEqual([1, 2, 3]);
        expect(negotiateEncoding("gzip;q=0, br;q=0")).toBeNull();
        expect(negotiateEncoding("*")).toBeNull();
        expect(negotiateEncoding("GZIP")).toBe("gzip");
      });
  });
});
