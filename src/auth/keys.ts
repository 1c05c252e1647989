/**
 * @module auth/keys
 * API keys (DESIGN §5): `sk_live_` + 40 characters of `[A-Za-z0-9]` from a CSPRNG, stored only
 * as a SHA-256 hash, shown masked as `sk_live_abcd…wxyz`.
 */
import { createHash, randomInt } from "node:crypto";

export const API_KEY_PREFIX = "sk_live_";
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const KEY_PATTERN = /^sk_live_[A-Za-z0-9]{40}$/;

/** All scopes; a token created without `scopes` gets them all. */
export const ALL_SCOPES = [
  "links:read",
  "links:write",
  "responses:read",
  "responses:write",
  "webhooks:read",
  "webhooks:write",
  "tokens:read",
  "tokens:write",
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

/**
 * Administrative scopes (DESIGN §10): never in a key unless a creator holding them asks for them.
 * A key's default scopes stay {@link ALL_SCOPES}. `metrics:read` reads the instance's `GET /metrics`
 * (DESIGN §14: every workspace's counts together, so only owners hold it).
 */
export const ADMIN_SCOPES = ["members:read", "members:write", "audit:read", "workspace:write", "metrics:read"] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];
/** Every scope a key or a role can hold: the 8 spec scopes, then the administrative ones. */
export const KEY_SCOPES = [...ALL_SCOPES, ...ADMIN_SCOPES] as const;
/** Any scope an operation can require. */
export type AnyScope = Scope | AdminScope;

/** A new plain API key (uniform over the alphabet: `randomInt` rejects modulo bias). */
export function generateApiKey(): string {
  let random = "";
  for (let i = 0; i < 40; i++) random += ALPHABET[randomInt(ALPHABET.length)];
  return API_KEY_PREFIX + random;
}

/** True when `key` has the exact API key format. */
export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** Hex SHA-256 of the key, the only form stored. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** `sk_live_abcd…wxyz`: the first and last 4 characters of the random part. */
export function maskApiKey(key: string): string {
  const random = key.slice(API_KEY_PREFIX.length);
  return `${API_KEY_PREFIX}${random.slice(0, 4)}…${random.slice(-4)}`;
}
