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
import { linkRoutes } from "./modules/links/routes.ts";
import { responseRoutes } from "./modules/responses/routes.ts";
import { tokenRoutes } from "./modules/tokens/routes.ts";
import { workspaceRoutes } from "./modules/workspaces/routes.ts";

/** JSON bodies above this answer 413 (DESIGN §4 / issue: the API). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/** Builds the application over its dependencies. */
export function createApp(deps: AppDeps) {
  return new Elysia({ strictPath: false })
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
    .onError(({ code, error }) => errorToResponse(error, code, deps.log))
    .get("/healthz", () => ({ status: "ok" }))
    .get("/", ({ redirect }) => redirect("/api/docs/", 302))
    .use(workspaceRoutes(deps))
    .use(tokenRoutes(deps))
    .use(linkRoutes(deps))
    .use(responseRoutes(deps))
    .use(intakeRoutes(deps));
}

export type App = ReturnType<typeof createApp>;
