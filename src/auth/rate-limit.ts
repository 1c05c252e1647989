/**
 * @module auth/rate-limit
 * Per-key fixed one-minute windows (DESIGN §4: RateLimit-Limit/Remaining/Reset on every
 * authenticated response, 429 with Retry-After ≥ 1 s). In memory: a single process serves the
 * appliance, and a restart forgiving a minute's count is acceptable.
 */
const WINDOW_MS = 60_000;

export type RateDecision = { allowed: boolean; headers: Record<string, string> };

export interface RateLimiter {
  /** Counts one request for `key` against `limitPerMinute` and says whether it may proceed. */
  take(key: string, limitPerMinute: number, nowMs?: number): RateDecision;
}

/** A fixed-window limiter; windows are aligned to the key's first request. */
export function createRateLimiter(): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  return {
    take(key, limit, nowMs = Date.now()) {
      if (nowMs - lastSweep > WINDOW_MS) {
        for (const [k, w] of windows) if (nowMs - w.start >= WINDOW_MS) windows.delete(k);
        lastSweep = nowMs;
      }
      let w = windows.get(key);
      if (!w || nowMs - w.start >= WINDOW_MS) {
        w = { start: nowMs, count: 0 };
        windows.set(key, w);
      }
      const resetS = Math.max(1, Math.ceil((w.start + WINDOW_MS - nowMs) / 1000));
      const allowed = w.count < limit;
      if (allowed) w.count++;
      const headers: Record<string, string> = {
        "RateLimit-Limit": String(limit),
        "RateLimit-Remaining": String(Math.max(0, limit - w.count)),
        "RateLimit-Reset": String(resetS),
      };
      if (!allowed) headers["Retry-After"] = String(resetS);
      return { allowed, headers };
    },
  };
}
