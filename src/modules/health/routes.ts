/**
 * @module health/routes
 * `GET /healthz` (no auth; DESIGN §9, §11, console contract): `{status, database: {kind, reachable},
 * models, jobs}` from `health/service.ts`. When the database does not answer: `503` with
 * `status: "unavailable"`, `database.reachable: false`, `jobs: null` and `Retry-After`, so a load
 * balancer takes the node out until the database is back.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { healthReport } from "./service.ts";

/** `GET /healthz`. */
export function healthRoutes(deps: AppDeps) {
  return new Elysia({ name: "health" }).get("/healthz", async ({ set }) => {
    const report = await healthReport(deps.db, deps.config);
    if (report.status === "unavailable") {
      set.status = 503;
      set.headers["retry-after"] = "5";
    }
    return report;
  });
}
