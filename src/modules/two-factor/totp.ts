/**
 * @module two-factor/totp
 * TOTP (RFC 6238; DESIGN §15: SHA-1, 30 s, 6 digits) through the `otpauth` library: a new secret,
 * its `otpauth://` URI and QR code, and checking a code at a given time. A code is accepted for
 * the time step before, at or after now (±30 s of clock drift); the caller refuses a step that
 * was used already (no replay).
 */
import { Secret, TOTP } from "otpauth";
import { renderSVG } from "uqr";

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of now. */
const WINDOW = 1;

function totpOf(secretBase32: string, label = "", issuer = "Earshot"): TOTP {
  return new TOTP({ issuer, label, algorithm: "SHA1", digits: TOTP_DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secretBase32) });
}

/** A new random secret (160 bits, as RFC 4226 recommends), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/**
 * What an authenticator app scans: the `otpauth://totp/…` URI and the same as an SVG QR code
 * (`data:image/svg+xml;base64,…`).
 * @param label the account, e.g. the user's email; `issuer` the installation's name
 */
export function enrolmentUri(secretBase32: string, label: string, issuer: string): { uri: string; qrCode: string } {
  const uri = totpOf(secretBase32, label, issuer).toString();
  const svg = renderSVG(uri, { border: 2 });
  return { uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}` };
}

/**
 * The time step a code belongs to, when it is valid at `nowMs` (within ±1 step), else null.
 * Anything but 6 digits is null without computing.
 */
export function matchingStep(secretBase32: string, code: string, nowMs: number): number | null {
  const token = code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const totp = totpOf(secretBase32);
  const delta = totp.validate({ token, timestamp: nowMs, window: WINDOW });
  return delta === null ? null : totp.counter({ timestamp: nowMs }) + delta;
}
