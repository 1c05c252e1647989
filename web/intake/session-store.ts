/**
 * @module web/intake/session-store
 * Remembers the session id per link in `localStorage` (key `earshot:session:<link_uuid>`,
 * docs/intake.md) so a reload resumes. Storage may be unavailable (private modes): then the
 * page still works, it just cannot resume.
 */

function key(linkUuid: string): string {
  return `earshot:session:${linkUuid}`;
}

/** The stored session id of a link, or null. */
export function loadSessionId(linkUuid: string): string | null {
  try {
    return window.localStorage.getItem(key(linkUuid));
  } catch {
    return null;
  }
}

/** Stores the session id of a link. */
export function saveSessionId(linkUuid: string, sessionId: string): void {
  try {
    window.localStorage.setItem(key(linkUuid), sessionId);
  } catch {
    // Storage disabled: the session lasts as long as the page.
  }
}

/** Forgets the session of a link (to start a new response). */
export function clearSessionId(linkUuid: string): void {
  try {
    window.localStorage.removeItem(key(linkUuid));
  } catch {
    // Nothing stored.
  }
}
