/**
 * @module app
 * `createApp(deps)`: the Elysia application — API, intake page and assets — with no side effects
 * on import, so tests build it too. HTTP rules of DESIGN §4 that apply before routing live here:
 * the trailing-slash redirect and the body size limits; errors go through `http/problem.ts`.
 */
import { Elysia } from "elysia";
import { AppError } from "./errors.ts";
import { peerOf, type AppDeps } from "./http/context.ts";
import { declaredLength, GLOBAL_MAX_BODY_BYTES, parseRequestBody, payloadTooLarge } from "./http/body.ts";
import { errorToResponse, problemResponse } from "./http/problem.ts";
import { intakeRoutes } from "./modules/intake/routes.ts";
import { liveRoutes } from "./modules/intake/live.ts";
import { consoleRoutes } from "./modules/console/routes.ts";
import { embedRoutes } from "./modules/embed/routes.ts";
import { linkRoutes } from "./modules/links/routes.ts";
import { responseRoutes } from "./modules/responses/routes.ts";
import { insightsRoutes } from "./modules/insights/routes.ts";
import { statsRoutes } from "./modules/stats/routes.ts";
import { mediaRoutes } from "./modules/media/routes.ts";
import { retentionRoutes } from "./modules/retention/routes.ts";

import { themeRoutes } from "./modules/themes/routes.ts";
import { invitationRoutes } from "./modules/invitations/routes.ts";
import { tokenRoutes } from "./modules/tokens/routes.ts";
import { webhookRoutes } from "./modules/webhooks/routes.ts";
import { alertRoutes } from "./modules/alerts/routes.ts";
import { workspaceRoutes } from "./modules/workspaces/routes.ts";
import { authRoutes } from "./modules/users/routes.ts";
import { twoFactorGate, twoFactorRoutes } from "./modules/two-factor/routes.ts";
import { oidcRoutes } from "./modules/oidc/routes.ts";
import { workspaceSsoRoutes } from "./modules/oidc/workspace-routes.ts";
import { memberRoutes } from "./modules/users/member-routes.ts";
import { mailRoutes } from "./modules/mail/routes.ts";
import { digestRoutes } from "./modules/digests/routes.ts";
import { auditRoutes } from "./modules/audit/routes.ts";
import { healthRoutes } from "./modules/health/routes.ts";
import { mcpRoutes } from "./modules/mcp/routes.ts";
import { buildOpenApiDocument } from "./api/openapi.ts";
import { apiOperations } from "./api/operations.ts";
import { REFERENCE_CSS, REFERENCE_CSS_PATH, renderReferencePage } from "./api/reference-page.ts";
import { OPENAPI_PATH, REFERENCE_PAGE_PATH, createReferenceDelivery } from "./api/reference-delivery.ts";
import { routePattern } from "./http/route-pattern.ts";
import { securityHeadersFor } from "./http/security-headers.ts";
import pkg from "../package.json" with { type: "json" };
import { httpMetricsWrap, type RequestDone } from "./metrics/http.ts";
import { createLogger } from "./logger.ts";
import { forwardedClientAddress } from "./http/client-address.ts";

/** JSON bodies above this answer 413 (DESIGN §4); see http/body.ts for every body limit. */
export { MAX_JSON_BODY_BYTES } from "./http/body.ts";

/**
 * The access log (`EARSHOT_ACCESS_LOG`; docs/operations.md): one JSON line per request on stderr,
 * whatever `EARSHOT_LOG_LEVEL` says — method, route template (never the path: it may hold a
 * session id), status, duration and client address; never headers, query strings or bodies.
 */
function accessLogger(deps: AppDeps, server: () => { requestIP(r: Request): { address: string } | null } | null): RequestDone {
  const log = createLogger("info");
  return (request, route, status, ms) => {
    const client = forwardedClientAddress(request, server()?.requestIP(request)?.address ?? null, deps.config.trustedProxies);
    log.info("request", { method: request.method, route, status, duration_ms: Math.round(ms * 100) / 100, client });
  };
}

/** Builds the application over its dependencies. */
export function createApp(deps: AppDeps) {
  // Built at the first request for them, not at start: together ~35 ms of every start (bench/startup.ts).
  let openapi: ReturnType<typeof buildOpenApiDocument> | null = null;
  const openapiDocument = () => (openapi ??= buildOpenApiDocument(apiOperations, `${deps.config.publicUrl}/api/v1`, pkg.version));
  const reference = createReferenceDelivery(openapiDocument, (doc) => renderReferencePage(doc as never));
  let routeTable: { method: string; pattern: RegExp }[] | null = null;
  // The 405 handler needs the finished route list; it is read through this, set once built.
  let servedRoutes: () => readonly { method: string; path: string }[] = () => [];
  // The Bun server once listening (client addresses for the access log); read through this too.
  let listening: () => { requestIP(r: Request): { address: string } | null } | null = () => null;
  const app = new Elysia({ strictPath: false })
    // Times every request under its route template (metrics/http.ts; DESIGN §14).
    .wrap(httpMetricsWrap(() => servedRoutes(), deps.config.accessLog ? accessLogger(deps, () => listening()) : undefined))
    // Security headers on every response, early ones and problems included (http/security-headers.ts).
    .onRequest(({ request, set }) => {
      const url = new URL(request.url);
      Object.assign(set.headers, securityHeadersFor(url.pathname, deps.config.frameAncestors));
      // Every API path ends in "/": redirect before authentication, for any method (DESIGN §4).
      if (url.pathname.startsWith("/api/") && !url.pathname.endsWith("/") && !/\.[a-z]+$/.test(url.pathname)) {
        // 308 for the MCP endpoint: its clients POST, and a 301 turns a POST into a GET (docs/mcp.md).
        const status = url.pathname === "/api/mcp" ? 308 : 301;
        return new Response(null, { status, headers: { location: `${url.pathname}/${url.search}` } });
      }
      // Refused before routing and without reading: no route takes a body this large (http/body.ts).
      const declared = declaredLength(request);
      if (declared !== null && declared > GLOBAL_MAX_BODY_BYTES) return problemResponse(payloadTooLarge(GLOBAL_MAX_BODY_BYTES));
    })
    // Bodies are read within their route's limit, after the credential check (http/body.ts).
    .onParse(({ request, contentType, server }) => parseRequestBody(deps, request, contentType, peerOf({ request, server })))
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") {
        // A known path with another method answers 405 with Allow (DESIGN §4).
        // A WebSocket route is reached by GET (the upgrade request).
        routeTable ??= servedRoutes().map((r) => ({
          method: r.method.toUpperCase() === "WS" ? "GET" : r.method.toUpperCase(),
          pattern: routePattern(r.path).regex,
        }));
        const path = new URL(request.url).pathname;
        const allowed = [...new Set(routeTable!.filter((r) => r.pattern.test(path)).map((r) => r.method))];
        if (allowed.length && !allowed.includes(request.method.toUpperCase())) {
          return problemResponse(new AppError("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${allowed.join(", ")}.`), {
            allow: allowed.join(", "),
          });
        }
      }
      return errorToResponse(error, code, deps.log);
    })
    .use(healthRoutes(deps))
    .get(OPENAPI_PATH, ({ request }) => reference.openapi(request))
    .get(REFERENCE_PAGE_PATH, ({ request }) => reference.page(request))
    .get(
      REFERENCE_CSS_PATH,
      () => new Response(REFERENCE_CSS, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600" } }),
    )
    .use(workspaceRoutes(deps))
    .use(authRoutes(deps, { secondFactor: twoFactorGate(deps) }))
    .use(twoFactorRoutes(deps))
    .use(oidcRoutes(deps, { secondFactor: twoFactorGate(deps) }))
    .use(workspaceSsoRoutes(deps))
    .use(memberRoutes(deps))
    .use(mailRoutes(deps))
    .use(digestRoutes(deps))
    .use(auditRoutes(deps))
    .use(tokenRoutes(deps))
    .use(linkRoutes(deps))
    .use(responseRoutes(deps))
    .use(insightsRoutes(deps))
    .use(statsRoutes(deps))
    .use(mediaRoutes(deps))
    .use(retentionRoutes(deps))

    .use(themeRoutes(deps))
    .use(invitationRoutes(deps))
    .use(webhookRoutes(deps))
    .use(alertRoutes(deps))
    .use(intakeRoutes(deps))
    .use(liveRoutes(deps))
    .use(embedRoutes(deps))
    .use(consoleRoutes(deps))
    .use(mcpRoutes(deps));
  servedRoutes = () => app.routes;
  listening = () => app.server;
  return app;
}

export type App = ReturnType<typeof createApp>;
