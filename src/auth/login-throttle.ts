/**
 * @module auth/login-throttle
 * Sign-in throttling (DESIGN §10): 5 failures per account or 20 per client address within 15
 * minutes refuse further attempts — right or wrong password — with 429 and `Retry-After` until the
 * oldest counted failure leaves the window. In memory, like the API rate limits: one process serves
 * the appliance, and a restart forgiving the counts is acceptable.
 */
export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

export interface LoginThrottle {
  /** Seconds to wait (≥ 1) when the account or the address is throttled, else 0. */
  retryAfterS(account: string, address: string | null, nowMs?: number): number;
  /** Counts a failed attempt against both. */
  fail(account: string, address: string | null, nowMs?: number): void;
  /** Forgets the account's failures after a successful sign-in. */
  succeed(account: string): void;
}

/** A sliding-window failure counter per account (lowercased email) and per address. */
export function createLoginThrottle(): LoginThrottle {
  const failures = new Map<string, number[]>();
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
  return {
    retryAfterS(account, address, nowMs = Date.now()) {
      return Math.max(wait(`a:${account}`, MAX_FAILURES_PER_ACCOUNT, nowMs), wait(`ip:${address ?? "unknown"}`, MAX_FAILURES_PER_ADDRESS, nowMs));
    },
    fail(account, address, nowMs = Date.now()) {
      for (const key of [`a:${account}`, `ip:${address ?? "unknown"}`]) failures.set(key, [...recent(key, nowMs), nowMs]);
    },
    succeed(account) {
      failures.delete(`a:${account}`);
    },
  };
}
