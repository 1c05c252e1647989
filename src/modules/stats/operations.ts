/**
 * @module stats/operations
 * OpenAPI entries of the dashboard endpoint (`src/api/operations.ts` lists them).
 */
import { operation, type Operation } from "../../http/operation.ts";
import { linkStatsSchema, statsQuerySchema } from "./model.ts";

const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED"];

/** The stats endpoint's declaration: route, document entry and scope. */
export const statsOps = {
  linkStats: operation({
    method: "get",
    path: "/api/v1/links/:link_uuid/stats/",
    summary:
      "A link's dashboard numbers: counts over time, completion rate, distributions and NPS, sentiment, topics, latest actionable answers (ETag; 304 when unchanged)",
    tag: "responses",
    scope: "responses:read",
    query: statsQuerySchema,
    success: { status: 200, schema: linkStatsSchema, description: "LinkStats" },
    errors: [...AUTH, "VALIDATION_ERROR", "NOT_FOUND", "INSUFFICIENT_SCOPE"],
    conditional: true,
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const statsOperations: Operation[] = Object.values(statsOps);
