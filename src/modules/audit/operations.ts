/**
 * @module audit/operations
 * The declaration of `GET audit/` (DESIGN §10): route, OpenAPI entry and scope in one place
 * (collected by src/api/operations.ts).
 */
import { envelopeOf, operation, pagedQuery, type Operation } from "../../http/operation.ts";
import { auditEntrySchema, auditQuerySchema } from "./service.ts";

const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "CSRF_FAILED", "RATE_LIMITED", "INSUFFICIENT_SCOPE"];

/** The audit log endpoint's declaration: route, document entry and scope. */
export const auditOps = {
  log: operation({
    method: "get",
    path: "/api/v1/audit/",
    summary: "The workspace's audit log, newest first (filters: action, actor, since, until)",
    tag: "audit",
    scope: "audit:read",
    query: pagedQuery(auditQuerySchema),
    success: { status: 200, schema: envelopeOf(auditEntrySchema), description: "Page of audit entries" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const auditOperations: Operation[] = Object.values(auditOps);
