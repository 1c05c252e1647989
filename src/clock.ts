/**
 * @module clock
 * Timestamps in the API's format (DESIGN §4): `YYYY-MM-DDTHH:MM:SS.ffffffZ`, UTC, six fractional
 * digits. Microseconds come from the high-resolution clock and never repeat within a process, so
 * rows created in the same millisecond still sort in creation order.
 */
let lastMicros = 0n;
const originMicros = BigInt(Date.now()) * 1000n - BigInt(Math.round(performance.now() * 1000));

/** Current time in microseconds since the Unix epoch, strictly increasing within the process. */
export function nowMicros(): bigint {
  let micros = originMicros + BigInt(Math.round(performance.now() * 1000));
  const wall = BigInt(Date.now()) * 1000n;
  // Re-anchor if the monotonic clock drifted from wall time by more than a second.
  if (micros < wall - 1_000_000n || micros > wall + 1_000_000n) micros = wall;
  if (micros <= lastMicros) micros = lastMicros + 1n;
  lastMicros = micros;
  return micros;
}

/** Formats microseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export function formatMicros(micros: bigint): string {
  const ms = Number(micros / 1000n);
  const frac = (micros % 1_000_000n).toString().padStart(6, "0");
  return new Date(ms).toISOString().slice(0, 19) + "." + frac + "Z";
}

/** The current time as an API timestamp. */
export function nowIso(): string {
  return formatMicros(nowMicros());
}

/** An API timestamp `seconds` from now (negative for the past). */
export function isoAfter(seconds: number): string {
  return formatMicros(nowMicros() + BigInt(Math.round(seconds * 1_000_000)));
}

/**
 * A source of time passed to the code that waits or expires things (leases, backoff, rate-limit
 * windows), so its tests move time forward instead of sleeping (issue 13). Production code takes
 * {@link systemClock}; tests take {@link createManualClock}.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
  /** The current time as an API timestamp (`YYYY-MM-DDTHH:MM:SS.ffffffZ`). */
  nowIso(): string;
  /** An API timestamp `seconds` from now (negative for the past). */
  isoAfter(seconds: number): string;
}

/** The real clock (the functions above). */
export const systemClock: Clock = { nowMs: () => Date.now(), nowIso, isoAfter };

/** A clock that moves only when told to; `advance(ms)` moves it forward. */
export type ManualClock = Clock & { advance(ms: number): void; set(ms: number): void };

/**
 * A test clock starting at `startMs` (default: now). Its timestamps never repeat: one
 * microsecond is added per reading within the same millisecond, as the real clock does.
 */
export function createManualClock(startMs = Date.now()): ManualClock {
  let ms = startMs;
  let tick = 0n;
  const micros = (offsetS = 0) => BigInt(ms) * 1000n + BigInt(Math.round(offsetS * 1_000_000)) + (tick = (tick + 1n) % 1000n);
  return {
    nowMs: () => ms,
    nowIso: () => formatMicros(micros()),
    isoAfter: (seconds) => formatMicros(micros(seconds)),
    advance(d) {
      ms += d;
    },
    set(v) {
      ms = v;
    },
  };
}
