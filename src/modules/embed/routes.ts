/**
 * @module embed/routes
 * `GET /embed.js` (issue 29; docs/embedding.md): the embed kit's script at the stable URL site
 * owners put in their pages, delivered like every web asset (http/asset-delivery.ts: brotli or
 * gzip, an `ETag` of its content, `304` on a match, five minutes' caching — a year with
 * `?v=<version>`, the content hash `versionOf` gives); and the console's embed preview page.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { createAssetServer } from "../../http/asset-delivery.ts";
import { EMBED_ASSET_PATH } from "../../http/embed-asset.ts";
import type { WebAsset } from "../../http/web-assets.ts";
import { AppError } from "../../errors.ts";
import { PREVIEW_PAGE_POLICY, renderEmbedPreview } from "./preview-page.ts";

/** The public URL path of the embed script. */
export const EMBED_SCRIPT_PATH = "/embed.js";

/**
 * `GET /embed.js` (when the assets hold the embed script) and the console's preview page
 * `GET /embed/preview/` (preview-page.ts; 404 `NOT_FOUND` for a query that names no link path and mode).
 */
export function embedRoutes(deps: AppDeps) {
  const app = new Elysia({ name: "embed" }).get("/embed/preview/", ({ request }) => {
    const html = renderEmbedPreview(new URL(request.url).searchParams);
    if (html === null) throw new AppError("NOT_FOUND", "Name a link path (link=/w/…/i/…) and a mode (inline, popup, slide-in, button).");
    return new Response(html, {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "content-security-policy": PREVIEW_PAGE_POLICY },
    });
  });
  const own = new Map<string, WebAsset>();
  // The script and the compressed copies the build made of it (`.br`, `.gz`).
  for (const suffix of ["", ".br", ".gz"]) {
    const asset = deps.webAssets.get(EMBED_ASSET_PATH + suffix);
    if (asset) own.set(EMBED_SCRIPT_PATH + suffix, asset);
  }
  if (!own.has(EMBED_SCRIPT_PATH)) return app;
  const assets = createAssetServer(own);
  return app.get(EMBED_SCRIPT_PATH, ({ request }) => assets.serve(EMBED_SCRIPT_PATH, request));
}
