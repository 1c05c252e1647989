/**
 * @module insights/operations
 * OpenAPI operations of the insights module (collected by src/api/operations.ts).
 */
import { operation, type Operation } from "../../http/operation.ts";
import { correctedInsightsSchema, correctInsightsSchema } from "./model.ts";

const WRITE = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED", "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

/** The insights endpoints, one declaration each: route, document entry, scope and audit. */
export const insightsOps = {
  correct: operation({
    method: "patch",
    path: "/api/v1/responses/:response_uuid/answers/:answer_uuid/insights/",
    summary: "Correct an answer's sentiment and actionable flag (the original is kept; who and when are recorded), or move it to another theme",
    tag: "responses",
    scope: "responses:write",
    // Insights corrections and answers moved between themes (theme_uuid).
    audit: { action: "answer.corrected", target: (p) => ({ type: "answer", uuid: p.answer_uuid ?? null, label: null }) },
    body: correctInsightsSchema,
    success: { status: 200, schema: correctedInsightsSchema, description: "The answer's insights as they now read" },
    errors: [...WRITE, "NOT_FOUND", "INSIGHTS_NOT_READY", "INSUFFICIENT_SCOPE", "THEME_NOT_FOUND", "THEME_QUESTION_MISMATCH"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const insightsOperations: Operation[] = Object.values(insightsOps);
