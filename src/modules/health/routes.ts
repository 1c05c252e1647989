/**
 * @module health/routes
 * `GET /healthz` (no auth; DESIGN §9, §11, §14, console contract): `{status, version, database:
 * {kind, reachable}, models, jobs}` from `health/service.ts`. When the database does not answer:
 * `503` with `status: "unavailable"`, `database.reachable: false`, `jobs: null` and `Retry-After`,
 * so a load balancer takes the node out until the database is back.
 * `GET /healthz/live` and `GET /healthz/ready` (no auth; health/readiness.ts), and `GET /metrics`
 * (Prometheus text; health/metrics.ts says who may read it).
 */
import { Elysia } from "elysia";
import { authenticateRequest } from "../../http/auth-plugin.ts";
import type { AppDeps } from "../../http/context.ts";
import { AppError } from "../../errors.ts";
import { healthReport } from "./service.ts";
import { liveness, readiness } from "./readiness.ts";
import { hasMetricsToken, isIntakeHost, METRICS_CONTENT_TYPE, metricsText } from "./metrics.ts";

/** `GET /healthz`, `/healthz/live`, `/healthz/ready` and `/metrics`. */
export function healthRoutes(deps: AppDeps) {
  return new Elysia({ name: "health" })
    .get("/healthz", async ({ set }) => {
      const report = await healthReport(deps.db, deps.config);
      if (report.status === "unavailable") {
        set.status = 503;
        set.headers["retry-after"] = "5";
      }
      return report;
    })
    .get("/healthz/live", () => liveness())
    .get("/healthz/ready", async ({ set }) => {
      const report = await readiness(deps.db, deps.workerState);
      if (report.status !== "ready") {
        set.status = 503;
        set.headers["retry-after"] = "5";
      }
      return report;
    })
    .get("/metrics", async ({ request, server, set }) => {
      // Off the public intake origins: there it is as unknown as any other console path.
      if (await isIntakeHost(deps, request)) throw new AppError("NOT_FOUND", "No such resource.");
      if (!hasMetricsToken(request, deps.config.metricsToken)) await authenticateRequest(deps, { request, server, set }, "metrics:read");
      return new Response(await metricsText(deps), { headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" } });
    });
}
