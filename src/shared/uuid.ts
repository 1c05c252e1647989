/**
 * @module shared/uuid
 * The shape of the UUIDs in paths and bodies. Neutral code (no imports), so any layer may use it.
 */

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `s` is a UUID in its canonical 8-4-4-4-12 hex form (any version, any case). */
export function isUuid(s: string): boolean {
  return UUID_PATTERN.test(s);
}
