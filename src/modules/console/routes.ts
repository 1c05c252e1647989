/**
 * @module console/routes
 * Serves the operator console (DESIGN §10, docs/console.md): `/` redirects to `/console/`, and
 * `/console`, `/console/` and every path under it answer the same HTML shell (the
 * client routes, so a reload of `/console/webhooks/<uuid>/` works). The shell's script and
 * stylesheet are `/assets/console.js` and `/assets/console.css`, served with the other web
 * assets (modules/intake/routes.ts).
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { renderConsoleShell } from "../../http/web-assets.ts";

/** First 12 hex digits of the SHA-256 of an asset's bytes ("0" when the asset is missing). */
function versionOf(body: Uint8Array | string | undefined): string {
  if (body === undefined) return "0";
  return new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 12);
}

/** The console shell routes and the root redirect. */
export function consoleRoutes(deps: AppDeps) {
  const shell = renderConsoleShell({
    js: versionOf(deps.webAssets.get("/assets/console.js")?.body),
    css: versionOf(deps.webAssets.get("/assets/console.css")?.body),
  });
  const serveShell = () =>
    new Response(shell, {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", "x-frame-options": "DENY" },
    });
  return new Elysia({ name: "console" })
    .get("/", ({ redirect }) => redirect("/console/", 302))
    .get("/console/", serveShell)
    .get("/console/*", serveShell);
}
