/**
 * @module intake/kiosk
 * The server's side of kiosk mode (issue 29; docs/intake.md "Kiosk mode"): a kiosk link's
 * sessions are never handed out again (no resume: the next respondent at the same device must not
 * see the last one's answers, whatever the page kept), and the exit PIN is checked here, against
 * its hash, so the page never holds it. PIN attempts are limited per client address and link.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { createRateLimiter } from "../../auth/rate-limit.ts";
import { isKioskExitPin, type StoredKiosk } from "../links/kiosk.ts";
import type { IntakeLink } from "./service.ts";

/** Exit-PIN attempts per client address and link per minute: a 4-digit PIN needs 2000 minutes on average. */
export const KIOSK_PIN_ATTEMPTS_PER_MINUTE = 5;
/**
 * Exit-PIN attempts per link per minute from all addresses together: guessing from many addresses
 * (or an IPv6 prefix's many) gains nothing past it, and the argon2 checks a link can cost are bounded.
 */
export const KIOSK_PIN_ATTEMPTS_PER_LINK_PER_MINUTE = 20;

/** The address a PIN attempt counts against: an IPv6 address by its /64 (one subscriber's prefix). */
export function attemptAddress(address: string): string {
  if (!address.includes(":") || address.includes(".")) return address;
  const groups = address.split("::");
  const head = groups[0] ? groups[0].split(":") : [];
  const tail = groups.length > 1 && groups[1] ? groups[1].split(":") : [];
  const full = groups.length > 1 ? [...head, ...Array(8 - head.length - tail.length).fill("0"), ...tail] : head;
  return `${full.slice(0, 4).join(":")}::/64`;
}

/** The link's kiosk setting while kiosk mode is on, else null. */
export function kioskOf(l: IntakeLink): StoredKiosk | null {
  const kiosk = (JSON.parse(l.link.settings) as { kiosk?: StoredKiosk | null }).kiosk;
  return kiosk?.enabled ? kiosk : null;
}

/**
 * Refuses to hand a kiosk link's session out again (`GET …/sessions/{id}/`, the page's resume).
 * @throws AppError KIOSK_NO_RESUME when the link is in kiosk mode
 */
export function refuseKioskResume(l: IntakeLink): void {
  if (kioskOf(l)) throw new AppError("KIOSK_NO_RESUME", "This link runs as a kiosk: its sessions are not resumed. Start a new session.");
}

export type KioskExitChecker = (l: IntakeLink, address: string, pin: unknown) => Promise<{ exited: true }>;

/**
 * Checks exit PINs (`POST …/kiosk/exit/`), at most {@link KIOSK_PIN_ATTEMPTS_PER_MINUTE} attempts
 * per (address or IPv6 /64, link) and {@link KIOSK_PIN_ATTEMPTS_PER_LINK_PER_MINUTE} per link a
 * minute — counted in memory, or in the database on PostgreSQL so that every node shares them.
 */
export function createKioskExitChecker(db: Kysely<Database>): KioskExitChecker {
  const limiter = createRateLimiter({ db });
  /**
   * @param pin the body's `pin` (anything the client sent)
   * @throws AppError NOT_FOUND (no kiosk mode or no PIN on this link), RATE_LIMITED with Retry-After, KIOSK_PIN_INVALID
   */
  return async (l, address, pin) => {
    const kiosk = kioskOf(l);
    if (!kiosk?.exit_pin_hash) throw new AppError("NOT_FOUND", "This link has no kiosk exit PIN.");
    const linkWide = await limiter.take(`kiosk-pin:${l.link.uuid}`, KIOSK_PIN_ATTEMPTS_PER_LINK_PER_MINUTE);
    const decision = linkWide.allowed ? await limiter.take(`kiosk-pin:${l.link.uuid}:${attemptAddress(address)}`, KIOSK_PIN_ATTEMPTS_PER_MINUTE) : linkWide;
    if (!decision.allowed) {
      throw new AppError("RATE_LIMITED", "Too many PIN attempts; wait a minute.", { headers: { "Retry-After": decision.headers["Retry-After"] ?? "60" } });
    }
    if (!(await isKioskExitPin(kiosk, pin))) throw new AppError("KIOSK_PIN_INVALID", "That PIN is not right.");
    return { exited: true };
  };
}
