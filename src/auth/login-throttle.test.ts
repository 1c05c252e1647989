import { describe, expect, test } from "bun:test";
import { createLoginThrottle, LOGIN_WINDOW_MS, MAX_FAILURES_PER_ACCOUNT } from "./login-throttle.ts";

describe("login throttle", () => {
  test("an attempt counts from its start; success takes it back and forgets the account's failures", () => {
    const t = createLoginThrottle();
    const begun = Array.from({ length: MAX_FAILURES_PER_ACCOUNT }, () => t.begin("a@x", "10.0.0.1", 1_000));
    expect(begun.every((b) => "attempt" in b)).toBe(true);
    // Five checks in flight: a sixth waits, even before any of them finished.
    expect(t.begin("a@x", "10.0.0.2", 1_000)).toEqual({ retryAfterS: LOGIN_WINDOW_MS / 1000 });
    (begun[0] as { attempt: { succeeded(): void } }).attempt.succeeded();
    expect("attempt" in t.begin("a@x", "10.0.0.2", 1_000)).toBe(true);
  });

  test("keys whose failures left the window are swept, not kept forever", () => {
    const t = createLoginThrottle();
    for (let i = 0; i < 1_000; i++) t.begin(`guess${i}@x`, `10.0.${i >> 8}.${i & 255}`, 1_000);
    expect(t.size()).toBe(2_000);
    // One attempt after the window from elsewhere: the old keys go, only its two stay.
    t.begin("late@x", "10.9.9.9", 1_000 + LOGIN_WINDOW_MS + 1);
    expect(t.size()).toBe(2);
  });
});
