/**
 * @module two-factor/operations
 * OpenAPI catalogue entries of the two-factor endpoints (issue 28; DESIGN §15). `auth/` endpoints
 * take the session cookie (or, for the second sign-in step, the ticket), not a key.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { operation, type Operation } from "../../http/operation.ts";
import { sessionSchema } from "../users/model.ts";
import {
  confirmEnrolmentSchema,
  enrolmentSchema,
  proofSchema,
  recoveryCodesSchema,
  requirementSchema,
  signInSecondStepSchema,
  twoFactorStatusSchema,
} from "./model.ts";

const message = lazySchema(() => z.object({ message: z.string() }));
const BODY = ["INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
const SESSION = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "CSRF_FAILED"];
const PROOF = [...SESSION, ...BODY, "TWO_FACTOR_NOT_ENABLED", "INVALID_TWO_FACTOR_CODE", "INVALID_CREDENTIALS", "RATE_LIMITED"];
const tag = "console accounts";

/** The two-factor endpoints, one declaration each: route, scope, body and document entry. */
export const twoFactorOps = {
  status: operation({
    method: "get",
    path: "/api/v1/auth/two-factor/",
    summary: "The signed-in user's two-factor state, and whether the current workspace requires it",
    tag,
    scope: "public",
    success: { status: 200, schema: twoFactorStatusSchema, description: "Two-factor state" },
    errors: SESSION,
  }),
  signIn: operation({
    method: "post",
    path: "/api/v1/auth/two-factor/",
    summary: "Second sign-in step: the TWO_FACTOR_REQUIRED ticket (after single sign-on, its cookie) with a code or a recovery code (sets the session cookie)",
    tag,
    scope: "public",
    body: signInSecondStepSchema,
    success: { status: 200, schema: sessionSchema, description: "The session (Set-Cookie: earshot_session)" },
    errors: ["HTTPS_REQUIRED", "CSRF_FAILED", ...BODY, "TWO_FACTOR_TICKET_INVALID", "INVALID_TWO_FACTOR_CODE", "RATE_LIMITED"],
  }),
  startEnrolment: operation({
    method: "post",
    path: "/api/v1/auth/two-factor/enrolment/",
    summary: "Start enrolling an authenticator app: a new secret, its otpauth:// URI and QR code (shown once)",
    tag,
    scope: "public",
    success: { status: 201, schema: enrolmentSchema, description: "The new secret" },
    errors: [...SESSION, "TWO_FACTOR_ALREADY_ENABLED"],
  }),
  confirmEnrolment: operation({
    method: "post",
    path: "/api/v1/auth/two-factor/enrolment/confirm/",
    summary: "Confirm the enrolment with a first code: two-factor is on, and the 10 recovery codes are returned once",
    tag,
    scope: "public",
    body: confirmEnrolmentSchema,
    success: { status: 200, schema: recoveryCodesSchema, description: "Recovery codes (shown once)" },
    errors: [...SESSION, ...BODY, "TWO_FACTOR_NOT_ENABLED", "TWO_FACTOR_ALREADY_ENABLED", "INVALID_TWO_FACTOR_CODE", "RATE_LIMITED"],
  }),
  disable: operation({
    method: "post",
    path: "/api/v1/auth/two-factor/disable/",
    summary: "Turn two-factor authentication off (needs the current code or the password)",
    tag,
    scope: "public",
    body: proofSchema,
    success: { status: 200, schema: message, description: "Turned off" },
    errors: PROOF,
  }),
  recoveryCodes: operation({
    method: "post",
    path: "/api/v1/auth/two-factor/recovery-codes/",
    summary: "Replace the recovery codes by 10 new ones (needs the current code or the password)",
    tag,
    scope: "public",
    body: proofSchema,
    success: { status: 200, schema: recoveryCodesSchema, description: "New recovery codes (shown once)" },
    errors: PROOF,
  }),
  requirement: operation({
    method: "put",
    path: "/api/v1/workspace/two-factor/",
    summary: "Require two-factor authentication of the workspace's members, or stop requiring it (owners, admins)",
    tag: "workspace",
    scope: "members:write",
    body: requirementSchema,
    success: { status: 200, schema: requirementSchema, description: "The requirement" },
    errors: ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED", "CSRF_FAILED", "INSUFFICIENT_SCOPE", ...BODY, "TWO_FACTOR_NOT_ENABLED"],
  }),
};

export const twoFactorOperations: Operation[] = Object.values(twoFactorOps);
