/**
 * @module metrics/http
 * The per-request metric (DESIGN §14; docs/decisions/hot-paths.md): a higher-order function
 * around every route's handler (Elysia's `wrap`, which also wraps the routes Bun serves natively)
 * that times the request to its response head and counts it under its route template, method and
 * status class. The template comes from a radix router (memoirist, Elysia's own) built once from
 * the app's route list: a lookup is well under a microsecond, and label children are cached, so a
 * request costs two clock reads, one lookup and one histogram bucket increment. It reads only the
 * request and the handler's answer — never Elysia's context (hot-paths.md §4).
 */
import { Memoirist } from "memoirist";
import { httpRequestDuration } from "./instruments.ts";

type Handle = (request: Request) => unknown;
type Route = { method: string; path: string };

/** Methods counted by name; anything else is `other` (labels must stay few). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The route label of a path no route matched (404s of scanners stay one series). */
export const UNMATCHED = "unmatched";

/**
 * Builds the router from the app's routes: each template under its method (WebSocket routes as
 * GET, their upgrade), with and without the trailing slash as Elysia serves them.
 */
function buildRouter(routes: readonly Route[]): Router {
  const router = new Memoirist<string>();
  // Paths without parameters are looked up in a map first (~20 ns instead of the tree's ~400 ns).
  const exact = new Map<string, string>();
  const seen = new Set<string>();
  const add = (method: string, path: string, template: string) => {
    const key = `${method} ${path}`;
    if (seen.has(key) || !path) return;
    seen.add(key);
    if (path.includes(":") || path.includes("*")) router.add(method, path, template);
    else exact.set(key, template);
  };
  for (const r of routes) {
    const method = r.method.toUpperCase() === "WS" ? "GET" : r.method.toUpperCase();
    if (!METHODS.has(method)) continue;
    add(method, r.path, r.path);
    add(method, r.path.endsWith("/") ? r.path.slice(0, -1) : `${r.path}/`, r.path);
    // Elysia answers HEAD for GET routes.
    if (method === "GET") add("HEAD", r.path, r.path);
  }
  return (method, path) => exact.get(`${method} ${path}`) ?? router.find(method, path)?.store ?? UNMATCHED;
}

/** The route template of a method and path, or {@link UNMATCHED}. */
type Router = (method: string, path: string) => string;

/** The path of a request URL without building a URL object (`http://host/path?query`). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const q = url.indexOf("?", start);
  return q === -1 ? url.slice(start) : url.slice(start, q);
}

/** One finished request, for the access log: route template (or `unmatched`), status, duration in ms. */
export type RequestDone = (request: Request, route: string, status: number, durationMs: number) => void;

/**
 * The higher-order function to give `app.wrap`.
 * @param routes the app's finished route list, read at the first request
 * @param onDone called after each request is recorded (the access log), if given
 * @returns `(handle) => (request) => answer`, recording `earshot_http_request_duration_seconds`
 */
export function httpMetricsWrap(routes: () => readonly Route[], onDone?: RequestDone) {
  let router: Router | null = null;
  const children = new Map<string, { observe(v: number): void }>();

  function record(request: Request, status: number, startMs: number): void {
    router ??= buildRouter(routes());
    const method = METHODS.has(request.method) ? request.method : "other";
    const route = router(method === "other" ? "GET" : method, pathOf(request.url));
    const statusClass = `${Math.floor(status / 100)}xx`;
    const key = `${route} ${method} ${statusClass}`;
    let child = children.get(key);
    if (!child) {
      child = httpRequestDuration.labels(route, method, statusClass);
      children.set(key, child);
    }
    const ms = performance.now() - startMs;
    child.observe(ms / 1000);
    onDone?.(request, route, status, ms);
  }

  const statusOf = (answer: unknown) => (answer instanceof Response ? answer.status : 200);

  return (handle: Handle) =>
    (request: Request): unknown => {
      const startMs = performance.now();
      const answer = handle(request);
      if (answer instanceof Promise) {
        return answer.then(
          (settled) => {
            record(request, statusOf(settled), startMs);
            return settled;
          },
          (err) => {
            record(request, 500, startMs);
            throw err;
          },
        );
      }
      record(request, statusOf(answer), startMs);
      return answer;
    };
}
