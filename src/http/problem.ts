/**
 * @module http/problem
 * RFC 9457 problem details: the only place that turns errors into HTTP statuses (DESIGN §4).
 * Unknown errors are logged with their stack and answered `INTERNAL` without details.
 */
import { AppError, ERROR_CODES, type ErrorCode, type FieldError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { isDatabaseUnavailable } from "../db/availability.ts";

const TITLES: Record<ErrorCode, string> = {
  NAME_REQUIRED: "Name required",
  SLUG_CONFLICT: "Slug already in use",
  VALIDATION_ERROR: "Validation failed",
  INVALID_JSON: "Invalid JSON",
  UNAUTHENTICATED: "Authentication required",
  INSUFFICIENT_SCOPE: "Insufficient scope",
  LINK_LIMIT_REACHED: "Link limit reached",
  HTTPS_REQUIRED: "HTTPS required",
  NOT_FOUND: "Not found",
  INVALID_PAGE: "Invalid page",
  METHOD_NOT_ALLOWED: "Method not allowed",
  LINK_PAUSED: "Link paused",
  LINK_CLOSED: "Link closed",
  CONSENT_REQUIRED: "Consent required",
  ALREADY_SUBMITTED: "Already submitted",
  PAYLOAD_TOO_LARGE: "Payload too large",
  UNSUPPORTED_MEDIA_TYPE: "Unsupported media type",
  AUDIO_TOO_LONG: "Recording too long",
  RATE_LIMITED: "Rate limit exceeded",
  INSIGHTS_NOT_READY: "Insights not ready",
  RESPONSE_ERASED: "Response erased",
  INVALID_CREDENTIALS: "Invalid credentials",
  CSRF_FAILED: "CSRF check failed",
  LAST_OWNER: "Last owner",
  THEME_NOT_FOUND: "Theme not found",
  THEME_MERGE_SELF: "Cannot merge a theme into itself",
  THEME_QUESTION_MISMATCH: "Themes of different questions",
  QUESTION_NOT_OPEN: "Not an open question",
  INVITATION_REQUIRED: "Invitation required",
  INVITATION_USED: "Invitation already used",
  MAIL_NOT_CONFIGURED: "Mail not configured",
  MAIL_SEND_FAILED: "Mail not sent",
  INVITATION_EXPIRED: "Invitation expired",
  INVITATION_REVOKED: "Invitation revoked",
  KIOSK_PIN_INVALID: "Wrong kiosk PIN",
  KIOSK_NO_RESUME: "Kiosk sessions are not resumed",
  TWO_FACTOR_REQUIRED: "Two-factor authentication required",
  INVALID_TWO_FACTOR_CODE: "Invalid authentication code",
  TWO_FACTOR_TICKET_INVALID: "Sign-in expired",
  TWO_FACTOR_ENROLMENT_REQUIRED: "Two-factor enrolment required",
  TWO_FACTOR_ALREADY_ENABLED: "Two-factor already enabled",
  TWO_FACTOR_NOT_ENABLED: "Two-factor not enabled",
  OIDC_NOT_CONFIGURED: "Single sign-on is not configured",
  OIDC_FAILED: "Single sign-on failed",
  OIDC_STATE_INVALID: "Single sign-on state mismatch",
  OIDC_PROVIDER_ERROR: "The identity provider reported an error",
  OIDC_EMAIL_UNVERIFIED: "Email not verified by the identity provider",
  OIDC_DOMAIN_NOT_ALLOWED: "Email domain not allowed",
  OIDC_NO_ROLE: "No role for this account",
  OIDC_NOT_A_MEMBER: "Not a member",
  OIDC_ACCOUNT_DISABLED: "Account disabled",
  OIDC_ACCOUNT_NOT_LINKABLE: "Account not linkable to this provider",
  OIDC_DISCOVERY_FAILED: "Identity provider discovery failed",
  SESSION_LIMITED_TO_WORKSPACE: "Session limited to one workspace",
  PASSWORD_SIGNIN_DISABLED: "Password sign-in is disabled",
  INTERNAL: "Internal error",
  DATABASE_UNAVAILABLE: "Database unavailable",
};

/** The problem+json body. */
export type Problem = {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  /** Extension members (RFC 9457 §3.2), e.g. `ticket` and `expires_at` of TWO_FACTOR_REQUIRED. */
  [extension: string]: unknown;
};

/** Builds the problem+json body of an AppError. */
export function toProblem(err: AppError): Problem {
  const body: Problem = {
    type: `https://earshot.dev/problems/${err.code.toLowerCase().replaceAll("_", "-")}`,
    title: TITLES[err.code],
    status: ERROR_CODES[err.code],
    code: err.code,
    detail: err.message,
  };
  if (err.errors) body.errors = err.errors;
  // Extensions never override the standard members.
  for (const [k, v] of Object.entries(err.extensions ?? {})) if (!(k in body)) body[k] = v;
  return body;
}

/** A `Response` with `Content-Type: application/problem+json` and the error's extra headers. */
export function problemResponse(err: AppError, extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    "content-type": "application/problem+json",
    ...extraHeaders,
    ...(err.headers ?? {}),
  };
  if (err.code === "UNAUTHENTICATED") headers["www-authenticate"] = 'Bearer realm="earshot"';
  return new Response(JSON.stringify(toProblem(err)), { status: err.status, headers });
}

/**
 * Maps anything thrown by a handler (AppError, Elysia's parse/not-found errors, unknown) to a
 * problem response. Unknown errors are logged with their stack; the client sees only `INTERNAL`.
 */
export function errorToResponse(error: unknown, elysiaCode: unknown, log: Logger): Response {
  if (error instanceof AppError) return problemResponse(error);
  // Elysia wraps errors thrown while parsing a body; ours (413, INVALID_JSON) sit in `cause`.
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof AppError) return problemResponse(cause);
  switch (elysiaCode) {
    case "PARSE":
      return problemResponse(new AppError("INVALID_JSON", "The request body is not valid JSON."));
    case "NOT_FOUND":
      return problemResponse(new AppError("NOT_FOUND", "No such resource."));
    case "INVALID_COOKIE_SIGNATURE":
    case "VALIDATION":
      return problemResponse(new AppError("VALIDATION_ERROR", "The request is not valid."));
  }
  const status = (error as { status?: unknown })?.status;
  if (status === 413) return problemResponse(new AppError("PAYLOAD_TOO_LARGE", "The request body is too large."));
  if (isDatabaseUnavailable(error)) {
    // The node stays up and answers again once the database is back (pg reconnects); no stack.
    log.warn("database unavailable", { error: error instanceof Error ? error.message : String(error) });
    return problemResponse(new AppError("DATABASE_UNAVAILABLE", "The database cannot be reached. Try again shortly.", { headers: { "retry-after": "5" } }));
  }
  log.error("unhandled error", { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return problemResponse(new AppError("INTERNAL", "An unexpected error occurred. It has been logged."));
}
