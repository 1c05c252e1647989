/**
 * @module http/security-headers
 * Security headers on every response — pages, assets, API answers and problems (issue 9, Low):
 * `Content-Security-Policy` (as a header, so `frame-ancestors` applies), `X-Content-Type-Options:
 * nosniff` and `Referrer-Policy: same-origin`. `app.ts` sets them before routing; a route that
 * needs a different policy (e.g. an inline style's hash) sets its own
 * `Content-Security-Policy` on its Response, built with {@link contentSecurityPolicy}, and that
 * one wins.
 *
 * The HTML shells (intake page, console) also carry their page's policy in a `<meta>`, built from
 * the same directives by {@link metaContentSecurityPolicy}, so the two cannot disagree.
 *
 * Only the intake page may be framed, and only by the origins the operator lists in
 * `EARSHOT_FRAME_ANCESTORS` (default: nobody). The API, the console and the reference are never
 * framed.
 */

/** CSP directives by name, e.g. `{"default-src": "'none'", "img-src": "'self' data:"}`. */
export type CspDirectives = Readonly<Record<string, string>>;

/** Earshot's pages: only our own scripts, styles and API; no plugins, no `<base>`, no foreign forms. */
export const PAGE_DIRECTIVES: CspDirectives = {
  "default-src": "'none'",
  "script-src": "'self'",
  "style-src": "'self'",
  "connect-src": "'self'",
  "img-src": "'self' data:",
  "base-uri": "'none'",
  "form-action": "'self'",
  "frame-ancestors": "'none'",
};

/** The intake page: also shows the operator's image/video URLs of image_choice cards and recordings as blobs. */
export const INTAKE_PAGE_DIRECTIVES: CspDirectives = {
  ...PAGE_DIRECTIVES,
  "img-src": "* data: blob:",
  "media-src": "* data: blob:",
};

/**
 * The operator console (`/console/…`, docs/console.md): a page that also plays recordings — signed
 * `audio_url`s on this origin or the `EARSHOT_PUBLIC_URL` one — and shows a response's chosen
 * image-choice card, an image or a video from the http(s) URL the operator chose (security review
 * finding 3). Scripts, styles and API calls stay our own; it is never framed.
 */
export const CONSOLE_PAGE_DIRECTIVES: CspDirectives = {
  ...PAGE_DIRECTIVES,
  "img-src": "'self' http: https: data:",
  "media-src": "'self' http: https:",
  // The "Share / Embed" card's live preview (/embed/preview/, issue 29).
  "frame-src": "'self'",
};

/**
 * API answers, assets and downloads: nothing in them may run or load anything, even when a
 * stored file is opened directly in a browser (`sandbox`).
 */
export const NON_PAGE_DIRECTIVES: CspDirectives = {
  "default-src": "'none'",
  "base-uri": "'none'",
  "form-action": "'none'",
  "frame-ancestors": "'none'",
  sandbox: "",
};

/**
 * Serialises CSP directives into a header value; later objects override earlier ones.
 * @example contentSecurityPolicy(PAGE_DIRECTIVES, { "style-src": "'self' 'sha256-…'" })
 * @returns e.g. `default-src 'none'; script-src 'self'; …; frame-ancestors 'none'`
 */
export function contentSecurityPolicy(...parts: CspDirectives[]): string {
  const merged: Record<string, string> = Object.assign({}, ...parts);
  return Object.entries(merged)
    .map(([name, value]) => (value ? `${name} ${value}` : name))
    .join("; ");
}

/** Directives a `<meta>` policy cannot carry (browsers ignore them there, with a console warning). */
const HEADER_ONLY = new Set(["frame-ancestors", "sandbox", "report-uri"]);

/**
 * The `<meta http-equiv="Content-Security-Policy">` value of a page: its directives without the
 * header-only ones (`frame-ancestors`, `sandbox`, `report-uri`).
 */
export function metaContentSecurityPolicy(directives: CspDirectives): string {
  return contentSecurityPolicy(Object.fromEntries(Object.entries(directives).filter(([name]) => !HEADER_ONLY.has(name))));
}

/** The API reference page and its stylesheet: a page, under `/api/`. */
const REFERENCE_PAGE_PATH = "/api/docs/";

/** Paths of the intake page: `/w/{workspace}/i/{link}` and `/i/{link}` (docs/intake.md). */
const INTAKE_PAGE_PATH = /^\/(?:w\/[^/]+\/)?i\/[^/]+\/?$/;
/** `/console`, `/console/` and everything under it. */
const CONSOLE_PATH = /^\/console(?:\/|$)/;
const CONSOLE_POLICY = contentSecurityPolicy(CONSOLE_PAGE_DIRECTIVES);
const NON_PAGE_POLICY = contentSecurityPolicy(NON_PAGE_DIRECTIVES);
const PAGE_POLICY = contentSecurityPolicy(PAGE_DIRECTIVES);
/** The intake page's policy per `frame-ancestors` value (one per process: the configured one). */
const intakePolicies = new Map<string, string>();

/**
 * The security headers for a request path.
 * @param pathname the request's URL path
 * @param frameAncestors the CSP source list that may frame the intake page (`'none'` by default)
 * @returns header names (lowercase) and values to set on the response
 */
export function securityHeadersFor(pathname: string, frameAncestors: string): Record<string, string> {
  let policy: string;
  if (INTAKE_PAGE_PATH.test(pathname)) {
    policy = intakePolicies.get(frameAncestors) ?? contentSecurityPolicy(INTAKE_PAGE_DIRECTIVES, { "frame-ancestors": frameAncestors });
    if (intakePolicies.size < 8) intakePolicies.set(frameAncestors, policy);
  } else if (CONSOLE_PATH.test(pathname)) policy = CONSOLE_POLICY;
  else if ((pathname.startsWith("/api/") && !pathname.startsWith(REFERENCE_PAGE_PATH)) || pathname.startsWith("/assets/")) policy = NON_PAGE_POLICY;
  else policy = PAGE_POLICY;
  return {
    "content-security-policy": policy,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
  };
}

/**
 * Checks an `EARSHOT_FRAME_ANCESTORS` value: `'none'`, or space-separated `'self'`, `*`,
 * `https:`, origins and CSP host sources (`https://intranet.example.com`, `https://*.example.com`).
 * @returns an error message, or null when the value is usable
 */
export function frameAncestorsProblem(value: string): string | null {
  const sources = value.trim().split(/\s+/);
  if (sources.length === 1 && sources[0] === "'none'") return null;
  for (const s of sources) {
    if (s === "'self'" || s === "*") continue;
    if (!/^(https?:\/\/)?(\*\.)?[a-z0-9.-]+(:(\d{1,5}|\*))?$/i.test(s) && !/^https?:$/i.test(s)) {
      return `"${s}" is not 'self', 'none' or an origin such as https://intranet.example.com`;
    }
  }
  return null;
}
