/**
 * @module http/conditional
 * Conditional GET (RFC 9110 §13.1.2) for the endpoints the console polls (live updates,
 * docs/decisions/live-updates.md): the route computes a cheap `ETag` first, answers 304 when the
 * client's `If-None-Match` holds it, else produces the body and sends the tag with it.
 */

/**
 * Headers that make browsers revalidate a kept copy on every request (so `fetch` polls cheaply),
 * and keep one caller's copy from answering another (the body depends on the key or session).
 */
export const REVALIDATE = { "cache-control": "private, no-cache", vary: "Cookie, Authorization" } as const;

/** True when `If-None-Match` lists `etag` or is `*` (weak comparison: `W/` is ignored). */
export function matchesIfNoneMatch(request: Request, etag: string): boolean {
  const header = request.headers.get("if-none-match");
  if (!header) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}

/**
 * Answers 304 (empty, with the tag) when the client has the current version, else runs `produce`
 * and sets `ETag` and `Cache-Control` on the 200.
 * @param set the route context's `set`, whose headers go out with the 200
 * @param extra headers for the 304 (e.g. RateLimit-*)
 */
export async function conditional<T>(
  request: Request,
  set: { headers: Record<string, string | number> },
  etag: string,
  extra: Record<string, string>,
  produce: () => Promise<T>,
): Promise<T | Response> {
  if (matchesIfNoneMatch(request, etag)) return new Response(null, { status: 304, headers: { ...extra, etag, ...REVALIDATE } });
  const body = await produce();
  Object.assign(set.headers, { etag, ...REVALIDATE });
  return body;
}
