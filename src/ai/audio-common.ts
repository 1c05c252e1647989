/**
 * @module ai/audio-common
 * What the audio decoders share (ai/audio for the upload checks, ai/wav for WAV, ai/opus for WebM
 * and Ogg): the output rate, the channel bound, the errors, the output budget and the mono downmix.
 */

/** Whisper's input rate. */
export const TARGET_SAMPLE_RATE_HZ = 16_000;
/** Most channels a recording may have (they are averaged to mono). */
export const MAX_CHANNELS = 8;

/** A recording may run this much longer than its question's `max_duration` (DESIGN §9). */
export const RECORDING_GRACE_S = 2;
/** The longest recording any question allows (`max_duration` ≤ 600) plus the grace, in seconds. */
export const MAX_RECORDING_S = 600 + RECORDING_GRACE_S;

/** The longest recording accepted for a question whose `max_duration` is `maxDurationS` seconds. */
export function recordingLimitS(maxDurationS: number): number {
  return Math.min(maxDurationS, MAX_RECORDING_S - RECORDING_GRACE_S) + RECORDING_GRACE_S;
}

/** The bytes are not audio Earshot can decode; `reason` is a sentence a person can act on. */
export class AudioDecodeError extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(`cannot decode audio: ${reason}`);
    this.name = "AudioDecodeError";
    this.reason = reason;
  }
}

/**
 * The recording is longer than allowed. `limitS` is the limit in seconds (the question's
 * `max_duration` + 2 s); `durationS` the length found (from the header, or decoded so far).
 * A subclass of AudioDecodeError, so whoever treats undecodable audio as permanent does here too.
 */
export class AudioTooLongError extends AudioDecodeError {
  readonly limitS: number;
  readonly durationS: number;

  constructor(limitS: number, durationS: number) {
    super(`the recording is longer than the ${limitS} s accepted (at least ${durationS.toFixed(1)} s)`);
    this.name = "AudioTooLongError";
    this.limitS = limitS;
    this.durationS = durationS;
  }
}

/** Decoded output may run this far past the limit before it is refused (an Opus packet's end, pre-skip). */
export const OUTPUT_TOLERANCE_S = 0.25;

/**
 * The decoders' bound on what they produce, whatever a container or header claimed: each decoder
 * charges the 16 kHz samples it is about to make (or has just made, for one bounded batch) with
 * `take`, which throws AudioTooLongError as soon as the total passes `limitS` + 0.25 s.
 */
export class OutputBudget {
  /** Most 16 kHz samples the decoding may produce. */
  readonly maxSamples: number;
  /** Samples charged so far. */
  taken = 0;

  constructor(readonly limitS: number) {
    this.maxSamples = Math.ceil((limitS + OUTPUT_TOLERANCE_S) * TARGET_SAMPLE_RATE_HZ);
  }

  /** Charges `samples` 16 kHz samples. @throws AudioTooLongError when the total passes the limit */
  take(samples: number): void {
    this.taken += samples;
    if (this.taken > this.maxSamples) throw new AudioTooLongError(this.limitS, this.taken / TARGET_SAMPLE_RATE_HZ);
  }
}

export /** Averages the channels into one (the first, overwritten), mapping each sample x to (x - offset) / scale. */
function downmix(channels: Float32Array[], offset = 0, scale = 1): Float32Array {
  const [first, ...rest] = channels;
  if (first === undefined) return new Float32Array(0);
  if (rest.length === 0 && offset === 0 && scale === 1) return first;
  // Into the first channel, in place (callers pass their own copies): no second full-length array.
  const divisor = scale * channels.length;
  for (let i = 0; i < first.length; i++) {
    let sum = first[i]! - offset;
    for (const ch of rest) sum += (ch[i] ?? 0) - offset;
    first[i] = sum / divisor;
  }
  return first;
}

/** The bytes at `at` are the ASCII text `ascii`. */
export const startsWith = (bytes: Uint8Array, ascii: string, at = 0): boolean =>
  bytes.length >= at + ascii.length && [...ascii].every((c, i) => bytes[at + i] === c.charCodeAt(0));

/** An error's message, or the thrown value as text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
