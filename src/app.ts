/**
 * @module app
 * `createApp(deps)`: the Elysia application — API, intake page and assets — with no side effects
 * on import, so tests build it too. HTTP rules of DESIGN §4 that apply before routing live here:
 * the trailing-slash redirect and the JSON size limit; errors go through `http/problem.ts`.
 */
import { Elysia } from "elysia";
import { AppError } from "./errors.ts";
import type { AppDeps } from "./http/context.ts";
import { errorToResponse, problemResponse } from "./http/problem.ts";
import { intakeRoutes } from "./modules/intake/routes.ts";
import { liveRoutes } from "./modules/intake/live.ts";
import { consoleRoutes } from "./modules/console/routes.ts";
import { linkRoutes } from "./modules/links/routes.ts";
import { responseRoutes } from "./modules/responses/routes.ts";
import { tokenRoutes } from "./modules/tokens/routes.ts";
import { webhookRoutes } from "./modules/webhooks/routes.ts";
import { workspaceRoutes } from "./modules/workspaces/routes.ts";
import { buildOpenApiDocument } from "./http/openapi.ts";
import { apiOperations } from "./http/operations.ts";
import { renderReferencePage } from "./http/reference-page.ts";
import pkg from "../package.json" with { type: "json" };

/** Elysia path patterns (`/a/:b/`) as regular expressions. */
function patternOf(path: string): RegExp {
  return new RegExp("^" + path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[a-z_]+/g, "[^/]+") + "$");
}

/** JSON bodies above this answer 413 (DESIGN §4 / issue: the API). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/** Builds the application over its dependencies. */
export function createApp(deps: AppDeps) {
  const openapi = buildOpenApiDocument(apiOperations, `${deps.config.publicUrl}/api/v1`, pkg.version);
  const referencePage = renderReferencePage(openapi as never);
  let routeTable: { method: string; pattern: RegExp }[] | null = null;
  const app = new Elysia({ strictPath: false })
    .onRequest(({ request }) => {
      const url = new URL(request.url);
      // Every API path ends in "/": redirect before authentication, for any method (DESIGN §4).
      if (url.pathname.startsWith("/api/") && !url.pathname.endsWith("/") && !/\.[a-z]+$/.test(url.pathname)) {
        return new Response(null, { status: 301, headers: { location: `${url.pathname}/${url.search}` } });
      }
      const type = request.headers.get("content-type") ?? "";
      if (type.includes("json") && Number(request.headers.get("content-length") ?? "0") > MAX_JSON_BODY_BYTES) {
        return problemResponse(new AppError("PAYLOAD_TOO_LARGE", "JSON bodies may be at most 1 MiB."));
      }
    })
    .onParse(async ({ request, contentType }) => {
      const type = (contentType ?? "").toLowerCase();
      if (type.startsWith("multipart/form-data")) return request.formData();
      // Recordings and other binary bodies arrive as bytes; routes check what they got.
      if (!/^application\/([a-z.+-]+\+)?json\b/.test(type)) {
        if (type.startsWith("text/") || type.startsWith("application/x-www-form-urlencoded")) return request.text();
        return request.arrayBuffer();
      }
      // JSON is read here so that chunked bodies are size-checked too and bad JSON gets INVALID_JSON.
      const text = await request.text();
      if (text.length > MAX_JSON_BODY_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", "JSON bodies may be at most 1 MiB.");
      if (text.trim() === "") return {};
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new AppError("INVALID_JSON", "The request body is not valid JSON.");
      }
    })
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") {
        // A known path with another method answers 405 with Allow (DESIGN §4).
        // A WebSocket route is reached by GET (the upgrade request).
        routeTable ??= app.routes.map((r) => ({ method: r.method.toUpperCase() === "WS" ? "GET" : r.method.toUpperCase(), pattern: patternOf(r.path) }));
        const path = new URL(request.url).pathname;
        const allowed = [...new Set(routeTable.filter((r) => r.pattern.test(path)).map((r) => r.method))];
        if (allowed.length && !allowed.includes(request.method.toUpperCase())) {
          return problemResponse(new AppError("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${allowed.join(", ")}.`), { allow: allowed.join(", ") });
        }
      }
      return errorToResponse(error, code, deps.log);
    })
    .get("/healthz", () => ({ status: "ok" }))
    .get("/api/v1/openapi.json", () => openapi)
    .get("/api/docs/", () => new Response(referencePage, { headers: { "content-type": "text/html; charset=utf-8" } }))
    .use(workspaceRoutes(deps))
    .use(tokenRoutes(deps))
    .use(linkRoutes(deps))
    .use(responseRoutes(deps))
    .use(webhookRoutes(deps))
    .use(intakeRoutes(deps))
    .use(liveRoutes(deps))
    .use(consoleRoutes(deps));
  return app;
}

export type App = ReturnType<typeof createApp>;
