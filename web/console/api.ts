/**
 * The console's only way to the server: `fetch` to this origin's `/api/v1/` with the session
 * cookie, and `X-CSRF-Token` (from `GET auth/session/`) on every state-changing request
 * (DESIGN §10). Errors are the API's problem+json, thrown as `ApiError`.
 */
import { csrfToken, session, sessionChecked, type Session } from "./state.ts";

export const API_BASE = "/api/v1/";

/** A failed API call: HTTP status, the problem's `code`, a readable message, field errors. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: { pointer?: string; message?: string; detail?: string }[] = [],
    readonly retryAfter: number | null = null,
    /** The whole problem body, for its extension members (e.g. `ticket` of TWO_FACTOR_REQUIRED). */
    readonly problem: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * A request path built by {@link apiPath}: relative to `/api/v1/` (or absolute from `/`), every
 * interpolated parameter checked and encoded. {@link api} and `useLive` take nothing else, so no
 * route parameter, query value or API field reaches a request path unchecked (issue 22).
 */
export type ApiPath = string & { readonly __apiPath: unique symbol };

/**
 * What a path parameter may be: a UUID, a slug, a token (base64url) or a number — letters,
 * digits, `-` and `_` only. Nothing that could be or make a path: no `/`, `.`, `%`, `?`, `#`.
 */
const PATH_PARAMETER = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * Tagged template for API paths: `` apiPath`links/${uuid}/stats/` ``. Each parameter must be
 * one path segment's worth of letters, digits, `-` and `_` (a decoded console route parameter
 * such as `../../tokens/<uuid>` is refused, not requested) and is percent-encoded.
 * @returns the path, branded for {@link api}
 * @throws ApiError 404 NOT_FOUND for a parameter that is not one (the page shows it like any 404)
 */
export function apiPath(strings: TemplateStringsArray, ...params: (string | number)[]): ApiPath {
  let path = strings[0]!;
  params.forEach((param, i) => {
    const value = String(param);
    if (!PATH_PARAMETER.test(value)) throw new ApiError(404, "NOT_FOUND", "This page does not exist: its address names nothing the console knows.");
    path += encodeURIComponent(value) + strings[i + 1]!;
  });
  return path as ApiPath;
}

/** The list envelope of every paginated endpoint (DESIGN §4). */
export type Page<T> = { count: number; next: string | null; previous: string | null; results: T[] };

/**
 * Calls `/api/v1/<path>` (or an absolute same-origin path starting with `/`).
 * @param path from {@link apiPath}: relative to `/api/v1/`, e.g. `tokens/?page=2`
 * @param body sent as JSON when given; a `Blob` (a chosen file) is sent as its own bytes and type
 * @returns the parsed JSON body (null for an empty body)
 * @throws ApiError for any non-2xx answer or a network failure (status 0)
 */
export async function api<T = unknown>(method: string, path: ApiPath, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const raw = body instanceof Blob;
  if (body !== undefined) headers["content-type"] = raw ? body.type || "application/octet-stream" : "application/json";
  if (method !== "GET" && method !== "HEAD" && csrfToken.value) headers["x-csrf-token"] = csrfToken.value;
  let res: Response;
  try {
    res = await fetch(path.startsWith("/") ? path : API_BASE + path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "NETWORK_ERROR", "The server could not be reached. Check your connection and try again.");
  }
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    // The session ended (expired, signed out elsewhere, user disabled): back to sign-in.
    if (res.status === 401 && session.value && !path.startsWith("auth/")) session.value = null;
    const p = (data ?? {}) as { code?: string; detail?: string; title?: string; errors?: ApiError["errors"] };
    const retry = Number(res.headers.get("retry-after"));
    throw new ApiError(
      res.status,
      p.code ?? `HTTP_${res.status}`,
      p.detail ?? p.title ?? `The server answered ${res.status}.`,
      Array.isArray(p.errors) ? p.errors : [],
      Number.isFinite(retry) && retry > 0 ? retry : null,
      p as Record<string, unknown>,
    );
  }
  return data as T;
}

/** `path` with `page` and `page_size` set (other parameters kept). */
export function paged(path: ApiPath, page: number, pageSize = 20, params: Record<string, string> = {}): ApiPath {
  const q = new URLSearchParams({ ...params, page: String(page), page_size: String(pageSize) });
  for (const [k, v] of [...q]) if (v === "") q.delete(k);
  // URLSearchParams encodes every name and value.
  return `${path}?${q}` as ApiPath;
}

/** Loads `GET auth/session/` into the `session` signal (null when signed out). */
export async function refreshSession(): Promise<void> {
  try {
    session.value = await api<Session>("GET", apiPath`auth/session/`);
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 404)) throw err;
    session.value = null;
  } finally {
    sessionChecked.value = true;
  }
}
