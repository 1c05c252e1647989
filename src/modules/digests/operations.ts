/**
 * @module digests/operations
 * OpenAPI catalogue entries of a member's own notification preferences (issue 28). `auth/`
 * endpoints take the session cookie (writes its CSRF token), not a key.
 */
import { operation, type Operation } from "../../http/operation.ts";
import { notificationsSchema, notificationsUpdateSchema } from "./model.ts";

const SESSION = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "CSRF_FAILED", "NOT_FOUND"];
const tag = "console accounts";

/** The notification endpoints, one declaration each: route, scope, body and document entry. */
export const digestOps = {
  get: operation({
    method: "get",
    path: "/api/v1/auth/notifications/",
    summary: "The signed-in member's notification preferences in the current workspace (the email digest)",
    tag,
    scope: "public",
    success: { status: 200, schema: notificationsSchema, description: "Preferences" },
    errors: SESSION,
  }),
  set: operation({
    method: "put",
    path: "/api/v1/auth/notifications/",
    summary: "Choose the email digest of the current workspace: off, daily or weekly; audited",
    tag,
    scope: "public",
    body: notificationsUpdateSchema,
    success: { status: 200, schema: notificationsSchema, description: "Preferences" },
    errors: [...SESSION, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"],
  }),
};

export const digestOperations: Operation[] = Object.values(digestOps);
