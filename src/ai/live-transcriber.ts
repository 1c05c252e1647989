/**
 * @module ai/live-transcriber
 * Partial transcripts while a respondent is still speaking (DESIGN §9, `live_transcription`).
 * The page streams MediaRecorder chunks; together they always form a valid (growing) WebM file,
 * so the whole recording so far is re-transcribed — with priority "live", ahead of batch jobs —
 * at most once per interval and never twice at the same time. Whisper sees a window of context
 * each time, so earlier words may still change; the final transcript covers everything.
 * Framework-free: the WebSocket route (modules/intake/live.ts) feeds it and sends what it emits.
 */
import { AudioDecodeError, AudioTooLongError } from "./audio-common.ts";

/** At most one partial transcription per this many ms per recording. */
export const LIVE_INTERVAL_MS = 1_500;
/** Largest recording accepted over one socket: 10 min of Opus at 128 kbit/s fits. */
export const LIVE_MAX_BYTES = 16 * 1024 * 1024;

/** Server → page messages (JSON text frames). `duration` is in seconds. */
export type LiveServerMessage =
  | { type: "ready"; interval_ms: number; max_bytes: number }
  | { type: "partial"; text: string; duration: number }
  | { type: "final"; text: string; duration: number }
  | { type: "error"; code: string; message: string };

export type LiveTranscriberOptions = {
  /** Transcribes the whole recording so far (the caller passes priority "live"). */
  transcribe: (audio: Uint8Array) => Promise<{ text: string; durationS: number }>;
  /** Delivers partials and errors (not the final, which `finish` returns). */
  send: (message: LiveServerMessage) => void;
  /**
   * Told the full error of a failed partial (for the operator's log). The respondent only gets a
   * generic message with a code (see `respondentMessage`): never a server path or a fix to run.
   */
  onError?: (err: unknown) => void;
  intervalMs?: number;
  maxBytes?: number;
};

export type LiveTranscriber = {
  /** Adds one chunk (bytes are copied). @returns false when it would pass `maxBytes` (the chunk is dropped). */
  push(chunk: Uint8Array): boolean;
  /**
   * Stops partials, waits for the one in flight, and transcribes everything received.
   * @returns the final message; `{type: "final", text: "", duration: 0}` when nothing decodable arrived
   * @throws the inference error when the final transcription fails for another reason than
   *   undecodable audio (AudioTooLongError included)
   */
  finish(): Promise<LiveServerMessage & { type: "final" }>;
  /** The socket went away: stop at once (a transcription in flight is left to finish unseen). */
  close(): void;
};

/** Error code for the page: the inference error's code, or AUDIO_TOO_LONG / AUDIO_DECODE / INTERNAL. */
export function codeOf(err: unknown): string {
  if (err instanceof AudioTooLongError) return "AUDIO_TOO_LONG";
  if (err instanceof AudioDecodeError) return "AUDIO_DECODE";
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" ? code : "INTERNAL";
}

/** What a respondent is told for an error `code` of `codeOf`: generic, without server details. */
export function respondentMessage(code: string): string {
  if (code === "AUDIO_TOO_LONG") return "The recording is longer than this question allows.";
  if (code === "MODEL_MISSING") return "Live transcription is not available right now; your recording is still saved when you continue.";
  return "The recording could not be transcribed live.";
}

const round3 = (s: number) => Math.round(s * 1000) / 1000;

/**
 * Creates the transcriber of one recording. Nothing runs until the first chunk.
 */
export function createLiveTranscriber(opts: LiveTranscriberOptions): LiveTranscriber {
  const intervalMs = opts.intervalMs ?? LIVE_INTERVAL_MS;
  const maxBytes = opts.maxBytes ?? LIVE_MAX_BYTES;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let transcribedBytes = 0;
  let lastStartMs = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let inFlight: Promise<void> | null = null;
  let isStopped = false;
  let hasReportedError = false;

  const recording = (): Uint8Array => {
    const all = new Uint8Array(bytes);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.byteLength;
    }
    return all;
  };

  const schedule = (): void => {
    if (isStopped || timer !== null || inFlight !== null || bytes === transcribedBytes) return;
    const waitMs = Math.max(0, lastStartMs + intervalMs - performance.now());
    timer = setTimeout(runPartial, waitMs);
  };

  const runPartial = (): void => {
    timer = null;
    if (isStopped || bytes === transcribedBytes) return;
    const audio = recording();
    transcribedBytes = bytes;
    lastStartMs = performance.now();
    inFlight = opts
      .transcribe(audio)
      .then((r) => {
        if (!isStopped) opts.send({ type: "partial", text: r.text, duration: round3(r.durationS) });
      })
      .catch((err: unknown) => {
        // Too little audio yet to hold one Opus packet: wait for more. Anything else is told once.
        const isTooLong = err instanceof AudioTooLongError;
        if ((err instanceof AudioDecodeError && !isTooLong) || isStopped || hasReportedError) return;
        hasReportedError = true;
        opts.onError?.(err);
        const code = codeOf(err);
        opts.send({ type: "error", code, message: respondentMessage(code) });
      })
      .finally(() => {
        inFlight = null;
        schedule();
      });
  };

  return {
    push(chunk) {
      if (isStopped) return true;
      if (bytes + chunk.byteLength > maxBytes) return false;
      chunks.push(chunk.slice());
      bytes += chunk.byteLength;
      schedule();
      return true;
    },

    async finish() {
      isStopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await inFlight;
      if (bytes === 0) return { type: "final", text: "", duration: 0 };
      try {
        const r = await opts.transcribe(recording());
        return { type: "final", text: r.text, duration: round3(r.durationS) };
      } catch (err) {
        if (err instanceof AudioDecodeError && !(err instanceof AudioTooLongError)) return { type: "final", text: "", duration: 0 };
        throw err;
      }
    },

    close() {
      isStopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
