/**
 * @module auth/login-throttle
 * Sign-in throttling (DESIGN §10): 5 failures per account or 20 per client address within 15
 * minutes refuse further attempts — right or wrong password — with 429 and `Retry-After` until the
 * oldest counted failure leaves the window. In memory, like the API rate limits: one process serves
 * the appliance, and a restart forgiving the counts is acceptable.
 *
 * An attempt counts as a failure from the moment it begins (before the slow password check), and
 * is taken back only when it succeeds: so parallel attempts see each other, and 40 concurrent
 * guesses get 5 checks, not 40.
 */
export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

/** One counted attempt: `succeeded()` takes it back (and forgets the account's failures). */
export type LoginAttempt = { succeeded(): void };

export interface LoginThrottle {
  /**
   * Checks both limits and, when neither is reached, counts this attempt as a failure against the
   * account and the address until `succeeded()` is called on the returned attempt.
   * @returns `{ retryAfterS }` (≥ 1 s, nothing counted) when throttled, else `{ attempt }`
   */
  begin(account: string, address: string | null, nowMs?: number): { retryAfterS: number } | { attempt: LoginAttempt };
  /** Forgets the account's failures (after a password reset). */
  forget(account: string): void;
  /** Keys held (accounts + addresses with failures in the window); for tests and diagnostics. */
  size(): number;
}

/**
 * A sliding-window failure counter per account (lowercased email) and per address. Keys whose
 * failures all left the window are swept at most once a window, so the map stays bounded by the
 * attempts of the last 15–30 minutes.
 */
export function createLoginThrottle(): LoginThrottle {
  const failures = new Map<string, number[]>();
  let lastSweep = 0;
  const recent = (key: string, nowMs: number) => {
    const list = (failures.get(key) ?? []).filter((t) => nowMs - t < LOGIN_WINDOW_MS);
    if (list.length) failures.set(key, list);
    else failures.delete(key);
    return list;
  };
  const wait = (key: string, max: number, nowMs: number) => {
    const list = recent(key, nowMs);
    if (list.length < max) return 0;
    return Math.max(1, Math.ceil((list[list.length - max]! + LOGIN_WINDOW_MS - nowMs) / 1000));
  };
  const sweep = (nowMs: number) => {
    if (nowMs - lastSweep < LOGIN_WINDOW_MS) return;
    lastSweep = nowMs;
    for (const [key, list] of failures) {
      if (list.every((t) => nowMs - t >= LOGIN_WINDOW_MS)) failures.delete(key);
    }
  };
  const takeBack = (key: string, stamp: number) => {
    const list = failures.get(key);
    const at = list?.lastIndexOf(stamp) ?? -1;
    if (!list || at < 0) return;
    list.splice(at, 1);
    if (list.length === 0) failures.delete(key);
  };
  return {
    begin(account, address, nowMs = Date.now()) {
      sweep(nowMs);
      const accountKey = `a:${account}`;
      const addressKey = `ip:${address ?? "unknown"}`;
      const retryAfterS = Math.max(wait(accountKey, MAX_FAILURES_PER_ACCOUNT, nowMs), wait(addressKey, MAX_FAILURES_PER_ADDRESS, nowMs));
      if (retryAfterS > 0) return { retryAfterS };
      for (const key of [accountKey, addressKey]) failures.set(key, [...recent(key, nowMs), nowMs]);
      return {
        attempt: {
          succeeded() {
            failures.delete(accountKey);
            takeBack(addressKey, nowMs);
          },
        },
      };
    },
    forget(account) {
      failures.delete(`a:${account}`);
    },
    size: () => failures.size,
  };
}
