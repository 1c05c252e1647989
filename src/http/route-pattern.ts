/**
 * @module http/route-pattern
 * Elysia path patterns (`/api/v1/links/:link_uuid/`) as regular expressions over a request's path,
 * for the code that must recognise a route outside Elysia's router (the 405 answer in app.ts, the
 * audit hook).
 */

/** A route pattern compiled to match a path: one capture group per `:name` segment, in order. */
export type RoutePattern = { regex: RegExp; names: string[] };

/** Compiles `path` (e.g. `/api/v1/links/:link_uuid/`); segments match anything but `/`. */
export function routePattern(path: string): RoutePattern {
  const names = [...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
  const source = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[a-z_]+/g, "([^/]+)");
  return { regex: new RegExp(`^${source}$`), names };
}

/** The path's parameters by name (URL-decoded) when `path` matches `pattern`, else null. */
export function matchRoute(pattern: RoutePattern, path: string): Record<string, string> | null {
  const match = pattern.regex.exec(path);
  return match ? Object.fromEntries(pattern.names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)])) : null;
}
