/**
 * @module insights/routes
 * PATCH /api/v1/responses/{response_uuid}/answers/{answer_uuid}/insights/ — correct an answer's
 * sentiment and actionable flag (scope `responses:write`; docs/insights.md "Corrections").
 */
import { Elysia } from "elysia";
import { parseBody } from "../../http/operation.ts";
import { insightsOps } from "./operations.ts";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { correctInsights } from "./service.ts";

/** The insights-correction route. */
export function insightsRoutes(deps: AppDeps) {
  return new Elysia({ name: "insights" })
    .use(authPlugin(deps))
    .patch(
      insightsOps.correct.path,
      ({ params, body, auth }) =>
        correctInsights(deps.db, auth, params.response_uuid, params.answer_uuid, parseBody(insightsOps.correct, body ?? {}, "body"), (trx) =>
          deps.auth.assertActive(trx, auth),
        ),
      routeOptions(insightsOps.correct),
    );
}
