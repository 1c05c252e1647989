/**
 * @module two-factor/secrets
 * The secrets of two-factor authentication (docs/console.md "Two-factor authentication"):
 * - TOTP secrets are kept AES-256-GCM encrypted under an installation key (32 random bytes made at
 *   first use, in `settings`), so the column alone — a log of a query, a careless export — does
 *   not give codes away; the API returns a secret only once, when enrolment starts.
 * - Recovery codes are 10 random characters of Crockford base32 (50 bits), shown once as
 *   `xxxxx-xxxxx`; only their SHA-256 is stored (a fast hash suffices at that entropy).
 * - Sign-in tickets are 32 random bytes; only their SHA-256 is stored.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/** How many recovery codes a user holds (DESIGN §15). */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32: no i, l, o, u

/** A fresh installation key for {@link encryptSecret}, base64url. */
export function newInstallationKey(): string {
  return randomBytes(32).toString("base64url");
}

/** Encrypts a TOTP secret (base32 text) as `v1.<iv>.<ciphertext+tag>`; `keyB64` from {@link newInstallationKey}. */
export function encryptSecret(secret: string, keyB64: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(keyB64, "base64url"), iv);
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString("base64url")}.${body.toString("base64url")}`;
}

/**
 * Decrypts what {@link encryptSecret} made.
 * @throws Error when the value or the key is not the one it was made with (GCM tag mismatch)
 */
export function decryptSecret(stored: string, keyB64: string): string {
  const [version, ivB64, bodyB64] = stored.split(".");
  if (version !== "v1" || !ivB64 || !bodyB64) throw new Error("unknown two-factor secret format");
  const body = Buffer.from(bodyB64, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", Buffer.from(keyB64, "base64url"), Buffer.from(ivB64, "base64url"));
  decipher.setAuthTag(body.subarray(body.length - 16));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString("utf8");
}

/** SHA-256 hex of a string. */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** `RECOVERY_CODE_COUNT` new recovery codes, each `xxxxx-xxxxx` (50 random bits). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => ALPHABET[b & 31]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** The stored form of a recovery code as typed: case, spaces and dashes do not matter. */
export function recoveryCodeHash(typed: string): string {
  return sha256(typed.toLowerCase().replace(/[\s-]/g, ""));
}
