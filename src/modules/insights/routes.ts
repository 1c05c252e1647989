/**
 * @module insights/routes
 * PATCH /api/v1/responses/{response_uuid}/answers/{answer_uuid}/insights/ — correct an answer's
 * sentiment and actionable flag (scope `responses:write`; docs/insights.md "Corrections").
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { parseWith } from "../../http/validation.ts";
import { correctInsightsSchema } from "./model.ts";
import { correctInsights } from "./service.ts";

/** The insights-correction route. */
export function insightsRoutes(deps: AppDeps) {
  return new Elysia({ name: "insights" })
    .use(authPlugin(deps))
    .patch(
      "/api/v1/responses/:response_uuid/answers/:answer_uuid/insights/",
      ({ params, body, auth }) =>
        correctInsights(deps.db, auth, params.response_uuid, params.answer_uuid, parseWith(correctInsightsSchema, body ?? {}, "body"), (trx) =>
          deps.auth.assertActive(trx, auth),
        ),
      { auth: "responses:write" },
    );
}
