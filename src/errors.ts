/**
 * @module errors
 * The one error type of the services, and its codes. `http/errors.ts` turns an AppError into
 * RFC 9457 problem+json (DESIGN §4); that is the only place that picks an HTTP status.
 */

/** Every machine-readable error code, with its HTTP status. */
export const ERROR_CODES = {
  /** Link `name` missing or blank (spec: Errors). */
  NAME_REQUIRED: 400,
  /** Link `slug` already used in the workspace (spec: Errors). */
  SLUG_CONFLICT: 400,
  /** A field failed validation; `errors` lists JSON pointers. */
  VALIDATION_ERROR: 400,
  /** The body is not parseable JSON. */
  INVALID_JSON: 400,
  /** Missing, malformed, unknown or revoked API key. */
  UNAUTHENTICATED: 401,
  /** The key lacks the scope the operation needs; the detail names it. */
  INSUFFICIENT_SCOPE: 403,
  /** The workspace's plan allows no more links (spec: Errors). */
  LINK_LIMIT_REACHED: 403,
  /** An API key was sent over plain HTTP from a non-loopback peer (DESIGN §4). */
  HTTPS_REQUIRED: 403,
  /** No such resource in the key's workspace (also malformed UUIDs and foreign resources). */
  NOT_FOUND: 404,
  /** `page` is past the last page. */
  INVALID_PAGE: 404,
  /** The path exists but not with this method. */
  METHOD_NOT_ALLOWED: 405,
  /** The link is paused and accepts no responses. */
  LINK_PAUSED: 409,
  /** The link's `close_at` passed or its `response_limit` was reached: no new session starts (DESIGN §13). */
  LINK_CLOSED: 409,
  /** The link asks for consent (`settings.consent`) before this step, and the session has not given it (DESIGN §13). */
  CONSENT_REQUIRED: 409,
  /** The respondent's session was already submitted. */
  ALREADY_SUBMITTED: 409,
  /** The answer has no insights to correct (not analysed yet, or no free text). */
  INSIGHTS_NOT_READY: 409,
  /** The webhook event's response was erased: its payload is redacted and cannot be redelivered. */
  RESPONSE_ERASED: 410,
  /** The body is larger than the endpoint accepts. */
  PAYLOAD_TOO_LARGE: 413,
  /** The body's media type is not accepted here. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** A recording is longer than its question's `max_duration` + 2 s (DESIGN §9). */
  AUDIO_TOO_LONG: 400,
  /** The key's per-minute request budget is spent; see `Retry-After`. */
  RATE_LIMITED: 429,
  /** Console sign-in: wrong email or password (one generic message for both). */
  INVALID_CREDENTIALS: 401,
  /** A state-changing request with the session cookie lacked `X-CSRF-Token` or came from another origin. */
  CSRF_FAILED: 403,
  /** The change would leave the workspace without an owner. */
  LAST_OWNER: 400,
  /** No such theme of this link (DESIGN §12; also malformed uuids and other workspaces' themes). */
  THEME_NOT_FOUND: 404,
  /** A theme cannot be merged into itself (`into` is the theme being merged). */
  THEME_MERGE_SELF: 422,
  /** Themes of two different questions cannot be merged; an answer moves only to a theme of its own question. */
  THEME_QUESTION_MISMATCH: 422,
  /** Themes belong to open questions (voice, voice_text_fallback, text) of the link; this question is none of them. */
  QUESTION_NOT_OPEN: 422,
  /** The link needs a personal invitation (`settings.access: "invitation"`) and none, or no valid one, was sent (DESIGN §13). */
  INVITATION_REQUIRED: 403,
  /** The invitation already started or submitted a response that cannot be continued: it is good for one submitted response. */
  INVITATION_USED: 409,
  /** The invitation's `expires_at` passed before it started a response. */
  INVITATION_EXPIRED: 403,
  /** The invitation was revoked (`DELETE …/invitations/{uuid}/`). */
  INVITATION_REVOKED: 403,
  /** Kiosk mode (issue 29): a wrong exit PIN on `POST intake/…/kiosk/exit/` (attempts are rate-limited). */
  KIOSK_PIN_INVALID: 403,
  /** Kiosk mode (issue 29): a kiosk link's sessions are never resumed (`GET intake/…/sessions/{id}/`), so the next respondent cannot see the last one's answers. */
  KIOSK_NO_RESUME: 409,
  /** Console sign-in: the password was right and the account uses two-factor authentication; the body's `ticket` goes to `POST auth/two-factor/` with a code (issue 28). */
  TWO_FACTOR_REQUIRED: 401,
  /** The authentication code or recovery code is wrong, expired or already used. */
  INVALID_TWO_FACTOR_CODE: 401,
  /** The second-factor ticket is unknown, used or older than 5 minutes: sign in with the password again. */
  TWO_FACTOR_TICKET_INVALID: 401,
  /** The session's workspace requires two-factor authentication and the user has not enrolled: only `auth/` endpoints answer until they do. */
  TWO_FACTOR_ENROLMENT_REQUIRED: 403,
  /** Two-factor authentication is already on for this user (disable it before enrolling again). */
  TWO_FACTOR_ALREADY_ENABLED: 409,
  /** Two-factor authentication is not on for this user (or no enrolment is waiting for its code). */
  TWO_FACTOR_NOT_ENABLED: 409,
  /** Mail is not configured (`EARSHOT_SMTP_URL`, `EARSHOT_MAIL_FROM`; DESIGN §15), so no test message can be sent. */
  MAIL_NOT_CONFIGURED: 409,
  /** The SMTP server refused the test message or could not be reached; the detail has its answer (never a secret). */
  MAIL_SEND_FAILED: 502,
  /** Single sign-on (DESIGN §15): `EARSHOT_OIDC_ISSUER` is not set on this server. */
  OIDC_NOT_CONFIGURED: 404,
  /** Single sign-on: the provider's answer failed a check (issuer, signature, expiry, nonce, a used code) or the provider could not be reached. */
  OIDC_FAILED: 502,
  /** Single sign-on: the callback's `state` does not match this browser's flow (started elsewhere, expired after 10 min, or forged). */
  OIDC_STATE_INVALID: 400,
  /** Single sign-on: the provider reported an error (e.g. the person cancelled). */
  OIDC_PROVIDER_ERROR: 400,
  /** Single sign-on: the provider sent no email, or has not verified it (`email_verified`). */
  OIDC_EMAIL_UNVERIFIED: 403,
  /** A workspace's single sign-on: the verified email has an Earshot account that is neither bound to this provider's identity nor a member or invitee of the workspace (or is bound to another identity of the same issuer). */
  OIDC_ACCOUNT_NOT_LINKABLE: 403,
  /** A workspace's single sign-on settings: the issuer's discovery document could not be loaded or used (the detail says why). */
  OIDC_DISCOVERY_FAILED: 422,
  /** A session from a workspace's own provider tried an account-wide change (password, name, second factor). */
  SESSION_LIMITED_TO_WORKSPACE: 403,
  /** Single sign-on: the email's domain is not in `EARSHOT_OIDC_ALLOWED_DOMAINS`. */
  OIDC_DOMAIN_NOT_ALLOWED: 403,
  /** Single sign-on: the role claim holds no value that `EARSHOT_OIDC_ROLE_MAP` maps to a role. */
  OIDC_NO_ROLE: 403,
  /** Single sign-on, invite-only: the person has no Earshot membership (and `EARSHOT_OIDC_AUTO_JOIN` is off). */
  OIDC_NOT_A_MEMBER: 403,
  /** Single sign-on: the Earshot account with this email is disabled. */
  OIDC_ACCOUNT_DISABLED: 403,
  /** `POST auth/login/` while `EARSHOT_PASSWORD_SIGNIN=false`: sign in through single sign-on. */
  PASSWORD_SIGNIN_DISABLED: 403,
  /** Anything unexpected; details are logged, never returned. */
  INTERNAL: 500,
  /** The database cannot be reached (PostgreSQL down or restarting); retry after `Retry-After` seconds. `/healthz` says `database.reachable: false`. */
  DATABASE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One validation problem: a JSON pointer into the request and a message. */
export type FieldError = { pointer: string; message: string };

/** A failure the client can act on, carrying its code (and for validation, field errors). */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;
  /** RFC 9457 extension members added to the problem body (e.g. `ticket` of TWO_FACTOR_REQUIRED). */
  readonly extensions: Record<string, string> | undefined;

  constructor(code: ErrorCode, detail: string, opts: { errors?: FieldError[]; headers?: Record<string, string>; extensions?: Record<string, string> } = {}) {
    super(detail);
    this.name = "AppError";
    this.code = code;
    this.errors = opts.errors;
    this.headers = opts.headers;
    this.extensions = opts.extensions;
  }

  get status(): number {
    return ERROR_CODES[this.code];
  }
}

/** Shorthand for the 404 that also covers foreign and malformed identifiers. */
export function notFound(what: string): AppError {
  return new AppError("NOT_FOUND", `${what} not found.`);
}
