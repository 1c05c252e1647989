/**
 * @module api/reference-delivery
 * How the API reference travels: `/api/v1/openapi.json` (~290 KB) and `/api/docs/` (~410 KB)
 * are made once per process at their first request (they name the configured public URL, so the
 * build cannot make them) and then served like the web assets (http/asset-delivery.ts): brotli
 * or gzip as `Accept-Encoding` allows, with `Vary`, an `ETag` and five minutes' caching. Each
 * encoding is made once, at its first request (brotli quality 9: ~14 KB and ~17 KB).
 */
import { createAssetServer, type AssetServer } from "../http/asset-delivery.ts";

export const OPENAPI_PATH = "/api/v1/openapi.json";
export const REFERENCE_PAGE_PATH = "/api/docs/";

/** First-use brotli quality: 11 would take ~300 ms per document on the request that pays for it. */
const BROTLI_QUALITY = 9;

/** Serves the OpenAPI document and the reference page; see the module comment. */
export interface ReferenceDelivery {
  /** The `openapi.json` response for this request (200 or 304). */
  openapi(request: Request): Response;
  /** The `/api/docs/` page's response for this request (200 or 304). */
  page(request: Request): Response;
}

/**
 * @param document the OpenAPI document (made at the first request of either path)
 * @param renderPage the reference page's HTML for that document (made at its first request)
 */
export function createReferenceDelivery(document: () => object, renderPage: (doc: object) => string): ReferenceDelivery {
  const servers = new Map<string, AssetServer>();
  const serverFor = (path: string, make: () => { body: string; contentType: string }): AssetServer => {
    let server = servers.get(path);
    if (!server) {
      const { body, contentType } = make();
      server = createAssetServer(new Map([[path, { body: new TextEncoder().encode(body), contentType }]]), { brotliQuality: BROTLI_QUALITY });
      servers.set(path, server);
    }
    return server;
  };
  return {
    openapi: (request) =>
      serverFor(OPENAPI_PATH, () => ({ body: JSON.stringify(document()), contentType: "application/json; charset=utf-8" })).serve(OPENAPI_PATH, request),
    page: (request) =>
      serverFor(REFERENCE_PAGE_PATH, () => ({ body: renderPage(document()), contentType: "text/html; charset=utf-8" })).serve(REFERENCE_PAGE_PATH, request),
  };
}
