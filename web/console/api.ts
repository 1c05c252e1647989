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
  ) {
    super(message);
  }
}

/** The list envelope of every paginated endpoint (DESIGN §4). */
export type Page<T> = { count: number; next: string | null; previous: string | null; results: T[] };

/**
 * Calls `/api/v1/<path>` (or an absolute same-origin path starting with `/`).
 * @param path relative to `/api/v1/`, e.g. `tokens/?page=2`
 * @param body sent as JSON when given; a `Blob` (a chosen file) is sent as its own bytes and type
 * @returns the parsed JSON body (null for an empty body)
 * @throws ApiError for any non-2xx answer or a network failure (status 0)
 */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
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
    );
  }
  return data as T;
}

/** `path` with `page` and `page_size` set (other parameters kept). */
export function paged(path: string, page: number, pageSize = 20, params: Record<string, string> = {}): string {
  const q = new URLSearchParams({ ...params, page: String(page), page_size: String(pageSize) });
  for (const [k, v] of [...q]) if (v === "") q.delete(k);
  return `${path}?${q}`;
}

/** Loads `GET auth/session/` into the `session` signal (null when signed out). */
export async function refreshSession(): Promise<void> {
  try {
    session.value = await api<Session>("GET", "auth/session/");
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 404)) throw err;
    session.value = null;
  } finally {
    sessionChecked.value = true;
  }
}
