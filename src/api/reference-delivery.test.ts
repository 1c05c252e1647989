/**
 * The API reference travels compressed (issue 26: `/api/docs/` was 413 KB and `openapi.json`
 * 293 KB, both sent as they are): brotli or gzip as `Accept-Encoding` allows, `Vary`, the same
 * bytes once decoded, and an `ETag` that answers 304. Real HTTP to a real `earshot serve`, read
 * with node:http, which does not decode (fetch would).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { startServer, type RunningServer } from "../../test/helpers/process.ts";

let server: RunningServer;
let dataDir: string;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-reference-"));
  server = await startServer({ dataDir });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** GET over a real socket; the body as it came over the wire. */
function get(pathname: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port: server.port, path: pathname, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

for (const [pathname, type] of [
  ["/api/v1/openapi.json", "application/json"],
  ["/api/docs/", "text/html"],
] as const) {
  test(`${pathname}: brotli, gzip or none as accepted, with Vary, the same bytes, and 304 on its ETag`, async () => {
    const plain = await get(pathname, { "accept-encoding": "identity" });
    expect([plain.status, plain.headers["content-encoding"], plain.headers.vary]).toEqual([200, undefined, "Accept-Encoding"]);
    expect(plain.headers["content-type"]).toContain(type);
    expect(plain.body.length).toBeGreaterThan(100_000);
    if (type === "application/json") expect(JSON.parse(plain.body.toString()).openapi).toBe("3.1.0");

    const br = await get(pathname, { "accept-encoding": "gzip, deflate, br" });
    expect([br.status, br.headers["content-encoding"], br.headers.vary]).toEqual([200, "br", "Accept-Encoding"]);
    expect(br.body.length).toBeLessThan(plain.body.length / 10);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);

    const gz = await get(pathname, { "accept-encoding": "gzip" });
    expect([gz.status, gz.headers["content-encoding"]]).toEqual([200, "gzip"]);
    expect(gz.body.length).toBeLessThan(plain.body.length / 8);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);

    // Each encoding has its own ETag; a client holding one gets 304 without a body.
    expect(br.headers.etag).not.toBe(gz.headers.etag);
    const again = await get(pathname, { "accept-encoding": "br", "if-none-match": br.headers.etag! });
    expect([again.status, again.body.length]).toEqual([304, 0]);
  }, 30_000);
}
