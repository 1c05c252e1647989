/**
 * @module links/kiosk
 * A link's kiosk mode (issue 29; docs/api.md "Kiosk mode"): `settings.kiosk` as accepted
 * (`{enabled, idle_timeout_s, exit_pin}`), as stored (the PIN as an argon2id hash from
 * Bun.password, never the PIN) and as returned (`has_exit_pin` only: the hash never leaves the
 * server). Kept apart from links/model.ts, which only spreads these members in.
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";

/** Idle seconds before a kiosk page resets, when the link does not say. */
export const DEFAULT_KIOSK_IDLE_TIMEOUT_S = 90;
/** Bounds of `idle_timeout_s`: long enough to read a question, short enough to be a reset (1 h). */
export const MIN_KIOSK_IDLE_TIMEOUT_S = 15;
export const MAX_KIOSK_IDLE_TIMEOUT_S = 3600;

/** The exit PIN: 4 to 12 digits (a tablet's number pad). */
const EXIT_PIN_PATTERN = /^\d{4,12}$/;

export const kioskInputSchema = z
  .object({
    enabled: z.boolean().default(true).describe("Serve the intake page as a kiosk (resets between respondents)"),
    idle_timeout_s: z
      .number()
      .int()
      .min(MIN_KIOSK_IDLE_TIMEOUT_S)
      .max(MAX_KIOSK_IDLE_TIMEOUT_S)
      .optional()
      .describe(`Seconds without input before the page asks "Still there?" and resets (default ${DEFAULT_KIOSK_IDLE_TIMEOUT_S})`),
    exit_pin: z
      .string()
      .regex(EXIT_PIN_PATTERN, "Use 4 to 12 digits.")
      .nullable()
      .optional()
      .describe("PIN that leaves kiosk mode on the device; stored hashed, never returned. Omitted on PATCH: kept; null: removed"),
  })
  .strict();
export type KioskInput = z.output<typeof kioskInputSchema>;

/** `settings.kiosk` as returned (null when the link never had kiosk mode). */
export const kioskOutputSchema = z.object({
  enabled: z.boolean(),
  idle_timeout_s: z.number().int(),
  has_exit_pin: z.boolean().describe("Whether leaving kiosk mode asks for the PIN (the PIN itself is never returned)"),
});
export type KioskSettings = z.output<typeof kioskOutputSchema>;

/** `settings.kiosk` as stored in the link's settings JSON: the returned shape plus the PIN's hash. */
export type StoredKiosk = KioskSettings & { exit_pin_hash?: string | null };

/** The returned form of a stored kiosk setting: without the PIN's hash. */
export function publicKiosk(stored: StoredKiosk | null | undefined): KioskSettings | null {
  if (!stored) return null;
  return { enabled: stored.enabled, idle_timeout_s: stored.idle_timeout_s, has_exit_pin: Boolean(stored.exit_pin_hash) };
}

/**
 * The exit PIN's hash to store, worked out before any transaction (argon2id takes tens of ms).
 * @param input `settings.kiosk` of the request
 * @returns the new hash; null when the PIN is removed; undefined when the stored one is kept
 */
export async function exitPinHashOf(input: KioskInput | null | undefined): Promise<string | null | undefined> {
  if (!input) return input === null ? null : undefined;
  if (input.exit_pin === undefined || input.exit_pin === null) return input.exit_pin;
  return Bun.password.hash(input.exit_pin);
}

/**
 * The kiosk setting to store: the given members over the stored ones over the defaults.
 * @param input `settings.kiosk` of the request (undefined: unchanged, null: removed)
 * @param stored the link's stored kiosk setting (creation: none)
 * @param pinHash {@link exitPinHashOf} of `input` (undefined keeps the stored hash)
 * @returns the setting to store, or null when the link has none
 */
export function kioskToStore(
  input: KioskInput | null | undefined,
  stored: StoredKiosk | null | undefined,
  pinHash: string | null | undefined,
): StoredKiosk | null {
  if (input === undefined) return stored ?? null;
  if (input === null) return null;
  const hash = pinHash === undefined ? (stored?.exit_pin_hash ?? null) : pinHash;
  return {
    enabled: input.enabled,
    idle_timeout_s: input.idle_timeout_s ?? stored?.idle_timeout_s ?? DEFAULT_KIOSK_IDLE_TIMEOUT_S,
    has_exit_pin: hash !== null,
    exit_pin_hash: hash,
  };
}

/**
 * Refuses kiosk mode on an invitation-only link: an invitation is one person's single-use URL,
 * a kiosk serves everyone who walks up.
 * @throws AppError VALIDATION_ERROR with pointer `/settings/kiosk/enabled`
 */
export function checkKioskAccess(kiosk: KioskSettings | null, access: string | null | undefined): void {
  if (kiosk?.enabled && access === "invitation") {
    throw new AppError("VALIDATION_ERROR", 'Kiosk mode needs an open link: settings.access is "invitation".', {
      errors: [{ pointer: "/settings/kiosk/enabled", message: 'Kiosk mode cannot be enabled on a link with access "invitation".' }],
    });
  }
}

/**
 * Whether `pin` is the stored kiosk setting's exit PIN (constant-time through Bun.password.verify).
 * @returns false when the link has no PIN or the PIN is not a string of digits
 */
export async function isKioskExitPin(stored: StoredKiosk | null | undefined, pin: unknown): Promise<boolean> {
  if (!stored?.exit_pin_hash || typeof pin !== "string" || !EXIT_PIN_PATTERN.test(pin)) return false;
  return Bun.password.verify(pin, stored.exit_pin_hash);
}
