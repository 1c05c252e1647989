/**
 * @module http/asset-delivery
 * How the web assets (http/web-assets.ts: the intake page's and the console's scripts,
 * stylesheets and catalogs) travel: brotli or gzip as the browser accepts (`Content-Encoding`,
 * `Vary: Accept-Encoding`), an `ETag` per content and encoding (`304` on `If-None-Match`), and
 * a year's `immutable` caching when the URL names the content (`?v=<assetVersion>`), five minutes
 * otherwise. The compiled binary carries both encodings made at build time (scripts/build.ts
 * writes `<file>.br` and `<file>.gz` beside each file, see {@link withCompressedVariants}); from
 * source each is made once, at its first request.
 */
import type { WebAsset } from "./web-assets.ts";

type Assets = ReadonlyMap<string, WebAsset>;

/** Cache lifetime of a URL that names its content (`?v=`): a year. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** Cache lifetime of a plain asset URL (the version may change with an upgrade). */
const SHORT = "public, max-age=300";
/** Smaller bodies are sent as they are: compression would save less than its headers cost. */
const MIN_COMPRESS_BYTES = 512;
const COMPRESSIBLE = /^(text\/|application\/(json|javascript)|image\/svg\+xml)/;

/**
 * `node:zlib` (and `node:stream` under it), loaded at the first compression — a page's first
 * request, or the build — rather than at every start of the binary (bench/startup.ts).
 */
const zlib = (): typeof import("node:zlib") => require("node:zlib");

type Encoding = "br" | "gzip";
const SUFFIX: Record<Encoding, string> = { br: ".br", gzip: ".gz" };

/**
 * The version of an asset's content: the first 12 hex digits of its SHA-256 (the `?v=` the
 * pages put on asset URLs).
 */
export function assetVersion(body: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 12);
}

const compressible = (asset: WebAsset) => COMPRESSIBLE.test(asset.contentType) && asset.body.byteLength >= MIN_COMPRESS_BYTES;

function encode(body: Uint8Array, encoding: Encoding, brotliQuality = 11): Uint8Array {
  const { brotliCompressSync, constants, gzipSync } = zlib();
  return encoding === "br"
    ? new Uint8Array(
        brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } }),
      )
    : new Uint8Array(gzipSync(body, { level: 9 }));
}

/**
 * The assets plus a brotli (`<path>.br`) and a gzip (`<path>.gz`) copy of each compressible one,
 * for the build to embed (the server then never compresses at run time).
 */
export function withCompressedVariants(assets: Assets): Map<string, WebAsset> {
  const out = new Map<string, WebAsset>(assets);
  for (const [path, asset] of assets) {
    if (!compressible(asset)) continue;
    for (const encoding of ["br", "gzip"] as const) out.set(path + SUFFIX[encoding], { body: encode(asset.body, encoding), contentType: asset.contentType });
  }
  return out;
}

/**
 * The encoding to send for an `Accept-Encoding` header: brotli, else gzip, else none. A coding
 * listed with `q=0` is refused.
 */
export function negotiateEncoding(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Set<string>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name.trim());
  }
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip") || accepted.has("x-gzip")) return "gzip";
  return null;
}

/**
 * A page made per request (the intake page), compressed for the request: brotli at a fast
 * setting (quality 5: ~0.2 ms for the intake page), else gzip, else as it is; with `Vary`.
 * @param acceptEncoding the request's `Accept-Encoding`
 * @param headers the response's other headers (`Content-Type`, `Cache-Control`, …)
 */
export function compressedPage(acceptEncoding: string | null, body: string, headers: Record<string, string>, status = 200): Response {
  const bytes = new TextEncoder().encode(body);
  const encoding = bytes.byteLength >= MIN_COMPRESS_BYTES ? negotiateEncoding(acceptEncoding) : null;
  const out: Record<string, string> = { ...headers, vary: "Accept-Encoding" };
  if (!encoding) return new Response(bytes, { status, headers: out });
  out["content-encoding"] = encoding;
  const { brotliCompressSync, constants, gzipSync } = zlib();
  const compressed =
    encoding === "br"
      ? brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } })
      : gzipSync(bytes, { level: 6 });
  return new Response(new Uint8Array(compressed), { status, headers: out });
}

/** One servable asset and its encodings (made at build time, or on first use). */
type Entry = { asset: WebAsset; version: string; encoded: Partial<Record<Encoding, Uint8Array>>; compressible: boolean };

export interface AssetServer {
  /** URL paths served (without the `.br`/`.gz` copies). */
  paths: string[];
  /** The content version of a path (for `?v=` in pages), or "" when there is no such asset. */
  versionOf(path: string): string;
  /** The response for a request to `path` (a path from {@link paths}). */
  serve(path: string, request: Request): Response;
}

/**
 * Builds the server of a set of assets; `<path>.br` and `<path>.gz` entries are taken as the
 * encodings of `<path>`.
 * @param opts.brotliQuality brotli quality of an encoding made at its first request (default 11,
 *   the build's; 9 costs ~35 ms instead of ~300 ms for a 400 KB page, for ~8 % more bytes)
 */
export function createAssetServer(assets: Assets, opts: { brotliQuality?: number } = {}): AssetServer {
  const entries = new Map<string, Entry>();
  for (const [path, asset] of assets) {
    if (path.endsWith(".br") || path.endsWith(".gz")) continue;
    const encoded: Entry["encoded"] = {};
    for (const encoding of ["br", "gzip"] as const) {
      const variant = assets.get(path + SUFFIX[encoding]);
      if (variant) encoded[encoding] = variant.body;
    }
    entries.set(path, { asset, version: assetVersion(asset.body), encoded, compressible: compressible(asset) });
  }
  return {
    paths: [...entries.keys()],
    versionOf: (path) => entries.get(path)?.version ?? "",
    serve(path, request) {
      const entry = entries.get(path)!;
      const encoding = entry.compressible ? negotiateEncoding(request.headers.get("accept-encoding")) : null;
      const etag = `"${entry.version}${encoding ? `-${encoding}` : ""}"`;
      const versioned = new URL(request.url).searchParams.get("v") === entry.version;
      const headers: Record<string, string> = {
        "content-type": entry.asset.contentType,
        "cache-control": versioned ? IMMUTABLE : SHORT,
        etag,
      };
      if (entry.compressible) headers.vary = "Accept-Encoding";
      const match = request.headers.get("if-none-match");
      if (match && match.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) return new Response(null, { status: 304, headers });
      if (!encoding) return new Response(entry.asset.body as BodyInit, { headers });
      const body = (entry.encoded[encoding] ??= encode(entry.asset.body, encoding, opts.brotliQuality));
      headers["content-encoding"] = encoding;
      return new Response(body as BodyInit, { headers });
    },
  };
}
