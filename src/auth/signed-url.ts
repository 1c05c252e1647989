/**
 * @module auth/signed-url
 * HMAC-signed URLs for recordings (DESIGN §7): `audio_url` works with the workspace's Bearer
 * key, or without one while `exp` (Unix seconds) is in the future and `sig` matches.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Signature of `path` valid until `exp` (Unix seconds), base64url. */
export function signPath(secret: string, path: string, exp: number): string {
  return createHmac("sha256", secret).update(`${path}\n${exp}`).digest("base64url");
}

/** `path?exp=…&sig=…` valid for `ttlS` seconds from `nowS`. */
export function signedPath(secret: string, path: string, ttlS: number, nowS = Math.floor(Date.now() / 1000)): string {
  const exp = nowS + ttlS;
  return `${path}?exp=${exp}&sig=${signPath(secret, path, exp)}`;
}

/** True when `sig` is the signature of `path` and `exp` has not passed. */
export function verifySignedPath(secret: string, path: string, exp: unknown, sig: unknown, nowS = Math.floor(Date.now() / 1000)): boolean {
  if (typeof exp !== "string" || typeof sig !== "string" || !/^\d{1,12}$/.test(exp)) return false;
  if (Number(exp) < nowS) return false;
  const expected = Buffer.from(signPath(secret, path, Number(exp)));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
