/**
 * @module auth/sessions
 * Console session plumbing (DESIGN §10): the `earshot_session` cookie, opaque random secrets kept
 * only as SHA-256 hashes, the CSRF rule for cookie-authenticated writes, and the client address.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import { forwardedClientAddress } from "../http/client-address.ts";

export const SESSION_COOKIE = "earshot_session";
/** A session ends after 12 h without a request. */
export const SESSION_IDLE_S = 12 * 3600;
/** …and 30 days after sign-in at the latest. */
export const SESSION_ABSOLUTE_S = 30 * 24 * 3600;
/** `last_seen_at` is written at most this often per session (reads do not wait on a write each time). */
export const SESSION_TOUCH_S = 60;

/** 32 random bytes as base64url (43 characters): session ids, CSRF and one-time tokens. */
export function randomSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** Hex SHA-256: the only stored form of session ids and one-time tokens. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The value of cookie `name` in the request, or null. */
export function readCookie(request: Request, name = SESSION_COOKIE): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim() || null;
  }
  return null;
}

/** True when the request reached the browser's origin over HTTPS (directly or via a trusted proxy). */
export function cameOverHttps(request: Request, peer: string | null, config: Config): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  return !!peer && isTrustedProxy(peer, config) && request.headers.get("x-forwarded-proto")?.toLowerCase() === "https";
}

/**
 * The `Set-Cookie` value: HttpOnly, SameSite=Lax, Path=/, Secure when the request came over HTTPS.
 * @param value the session id, or null to clear the cookie
 */
export function sessionCookie(value: string | null, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${value ?? ""}`, "HttpOnly", "SameSite=Lax", "Path=/"];
  parts.push(value === null ? "Max-Age=0" : `Max-Age=${SESSION_ABSOLUTE_S}`);
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

function isTrustedProxy(peer: string, config: Config): boolean {
  return config.trustedProxies.includes(peer) || config.trustedProxies.includes(peer.replace(/^::ffff:/, ""));
}

/**
 * The client's address for throttling and the audit log: the same rule as the intake's limits
 * (http/client-address: the right-most `X-Forwarded-For` entry that is not a trusted proxy).
 * @returns null when the peer is unknown (in-process tests)
 */
export function clientAddress(request: Request, peer: string | null, config: Config): string | null {
  return forwardedClientAddress(request, peer, config.trustedProxies);
}

/** The origins this server answers as: the request's own, `EARSHOT_PUBLIC_URL`'s, and the forwarded https one. */
function ownOrigins(request: Request, peer: string | null, config: Config): string[] {
  const url = new URL(request.url);
  const origins = [url.origin, new URL(config.publicUrl).origin];
  if (peer && isTrustedProxy(peer, config) && request.headers.get("x-forwarded-proto")?.toLowerCase() === "https") {
    origins.push(`https://${request.headers.get("x-forwarded-host") ?? url.host}`);
  }
  return origins;
}

/**
 * Same-origin check on `Origin`, else `Referer`.
 * @param requireHeader when true a request naming neither is refused (cookie-authenticated writes);
 *   when false it passes (sign-in from a non-browser client: browsers always send Origin on POST)
 * @throws AppError CSRF_FAILED
 */
export function assertSameOrigin(request: Request, peer: string | null, config: Config, requireHeader: boolean): void {
  const origin = request.headers.get("origin");
  let claimed: string | null = null;
  if (origin && origin !== "null") claimed = origin;
  else {
    const referer = request.headers.get("referer");
    if (referer) {
      try {
        claimed = new URL(referer).origin;
      } catch {
        claimed = "invalid";
      }
    } else if (origin === "null") claimed = "null";
  }
  if (claimed === null) {
    if (requireHeader) throw new AppError("CSRF_FAILED", "A request made with the session cookie must come from this origin (Origin or Referer).");
    return;
  }
  if (!ownOrigins(request, peer, config).includes(claimed)) {
    throw new AppError("CSRF_FAILED", "Cross-origin requests with the session cookie are refused.");
  }
}

/** Methods that change state and so need the CSRF token with a cookie. */
export function isStateChanging(method: string): boolean {
  return !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());
}
