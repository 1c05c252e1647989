/**
 * @module shared/frame-origins
 * Who may show the intake page in an iframe (issue 29; docs/embedding.md): the operator's origins
 * (a workspace's `embed.allowed_origins`, `EARSHOT_FRAME_ANCESTORS`) are CSP `frame-ancestors`
 * sources. The server puts them in the page's header; the page, framed, posts its events only to
 * a parent whose origin one of them matches ({@link originMatches}). Runs on both sides: no imports.
 */

/** At most this many origins per workspace. */
export const MAX_EMBED_ORIGINS = 50;

/** `https://example.com`, `http://localhost:8080`, `https://*.example.com`: scheme, host (a leading `*.` allowed), optional port. */
const ORIGIN_PATTERN = /^(https?):\/\/(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?\/?$/i;

/**
 * Checks and normalises one allowed origin as an operator types it: lowercased, the default port
 * and a trailing slash dropped (`HTTPS://Shop.example.com:443/` → `https://shop.example.com`).
 * @returns the normalised origin, or null when it is not an http(s) origin (a path, a query, a
 *   user name, `*` alone, a quoted keyword)
 */
export function normalizeEmbedOrigin(input: string): string | null {
  const m = ORIGIN_PATTERN.exec(input.trim());
  if (!m) return null;
  const scheme = m[1]!.toLowerCase();
  const port = m[4];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return null;
  const isDefault = port === undefined || (scheme === "https" && port === "443") || (scheme === "http" && port === "80");
  return `${scheme}://${m[2] ?? ""}${m[3]!.toLowerCase()}${isDefault ? "" : `:${Number(port)}`}`;
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/**
 * Whether `origin` (a browser's serialised origin, `https://shop.example.com`) matches one CSP
 * `frame-ancestors` source: `*`, `'self'`, a scheme (`https:`), or a host source with optional
 * scheme, `*.` wildcard and port (`*` for any) — CSP Level 3 "Does url match expression".
 * @param self the protected page's own origin (for `'self'` and scheme-less sources)
 */
export function originMatches(origin: string, source: string, self: string): boolean {
  let url: URL;
  let own: URL;
  try {
    url = new URL(origin);
    own = new URL(self);
  } catch {
    return false;
  }
  if (!/^https?:$/.test(url.protocol)) return false;
  const s = source.trim().toLowerCase();
  if (s === "*") return true;
  if (s === "'self'") return url.origin === own.origin;
  if (/^https?:$/.test(s)) return url.protocol === s || (s === "http:" && url.protocol === "https:");
  const m = /^(?:(https?):\/\/)?(\*\.)?([a-z0-9.-]+)(?::(\d{1,5}|\*))?\/?$/.exec(s);
  if (!m) return false;
  const [, scheme, wildcard, host, port] = m;
  if (scheme) {
    if (!(url.protocol === `${scheme}:` || (scheme === "http" && url.protocol === "https:"))) return false;
  } else if (!(url.protocol === own.protocol || (own.protocol === "http:" && url.protocol === "https:"))) return false;
  const hostname = url.hostname.toLowerCase();
  if (wildcard ? !hostname.endsWith(`.${host}`) : hostname !== host) return false;
  if (port === "*") return true;
  const urlPort = url.port || DEFAULT_PORTS[url.protocol]!;
  const sourcePort = port ?? DEFAULT_PORTS[url.protocol]!;
  return urlPort === sourcePort;
}

/** Whether any of the CSP sources allows `origin` (an empty list, or `'none'`, allows nobody). */
export function originAllowed(origin: string, sources: readonly string[], self: string): boolean {
  return sources.some((s) => originMatches(origin, s, self));
}
