/**
 * @module ai/asr-windows
 * Recordings longer than Whisper's 30 s window, window after window, each starting where the previous
 * window's last complete segment ended: Whisper's own rule (OpenAI's `transcribe` and whisper.cpp
 * "seek" the same way). transformers.js' own chunking instead overlaps fixed windows by 5 s on each
 * side and merges the overlaps: 6 windows for 120 s where this needs 4, and text merged by guesswork
 * at every seam (docs/decisions/asr-transformers-tuning.md).
 */

/** Whisper hears 30 s at a time. */
export const WHISPER_WINDOW_S = 30;
/**
 * The least a window moves on, seconds: an open segment starting before this is kept (cut at the
 * window's end) rather than heard again, so a window can never stall on it.
 */
export const MIN_ADVANCE_S = 5;

/** A transformers.js chunk: its text and `[start, end]` seconds in the window (end null: left open). */
export type WhisperChunk = { text: string; timestamp?: [number | null, number | null] };
/** What the pipeline returns for one window with `return_timestamps: true`. */
export type WindowOutput = { text: string; chunks?: WhisperChunk[] };

/**
 * What one window contributes and where the next starts. Whisper leaves the last segment open (a
 * start timestamp, no end) when speech runs past the window: that segment is dropped here and the
 * next window starts at its start, so it is heard whole. A closed last segment, or no timestamps at
 * all (a model that predicts none), moves on by the whole window. A window whose text has no usable
 * timestamp becomes one chunk spanning the window: honest, not invented, boundaries.
 * @param windowS this window's length, seconds (≤ WHISPER_WINDOW_S; the last one may be shorter)
 * @param isLast nothing follows: an open last segment is kept, ending at the recording's end
 * @returns `advanceS` (seconds, > 0) and the kept chunks, timed within this window
 */
export function nextWindow(out: WindowOutput, windowS: number, isLast: boolean): { advanceS: number; chunks: WhisperChunk[] } {
  const chunks = (out.chunks ?? []).filter((c) => c.text.trim() !== "");
  const last = chunks.at(-1);
  const [lastStart, lastEnd] = last?.timestamp ?? [null, null];
  const isOpen = typeof lastStart === "number" && typeof lastEnd !== "number";
  if (!isLast && isOpen && lastStart >= MIN_ADVANCE_S && lastStart < windowS) {
    return { advanceS: lastStart, chunks: chunks.slice(0, -1) };
  }
  const isTimed = chunks.some((c) => typeof c.timestamp?.[0] === "number");
  if (!isTimed && out.text.trim() !== "") return { advanceS: windowS, chunks: [{ text: out.text, timestamp: [0, windowS] }] };
  return { advanceS: windowS, chunks };
}

/**
 * Transcribes `pcm` (`sampleRateHz` mono) window by window with `transcribeWindow` (the pipeline
 * called on ≤ 30 s with timestamps on), following {@link nextWindow}.
 * @returns the text (window texts joined, trimmed) and the chunks timed from the recording's start
 */
export async function transcribeWindows(
  pcm: Float32Array,
  sampleRateHz: number,
  transcribeWindow: (window: Float32Array) => Promise<WindowOutput>,
): Promise<{ text: string; chunks: WhisperChunk[] }> {
  const windowSamples = WHISPER_WINDOW_S * sampleRateHz;
  const all: WhisperChunk[] = [];
  for (let offset = 0; offset < pcm.length; ) {
    const window = pcm.subarray(offset, offset + windowSamples);
    const isLast = offset + windowSamples >= pcm.length;
    const { advanceS, chunks } = nextWindow(await transcribeWindow(window), window.length / sampleRateHz, isLast);
    const offsetS = offset / sampleRateHz;
    const shift = (t: number | null | undefined) => (typeof t === "number" ? Math.round((t + offsetS) * 1000) / 1000 : null);
    // An open segment kept in a window that is not the last ends with that window, not the recording.
    const endOf = (c: WhisperChunk) => (typeof c.timestamp?.[1] === "number" || isLast ? c.timestamp?.[1] : window.length / sampleRateHz);
    for (const c of chunks) all.push({ text: c.text, timestamp: [shift(c.timestamp?.[0]), shift(endOf(c))] });
    offset += Math.max(1, Math.round(advanceS * sampleRateHz));
  }
  const text = all
    .map((c) => c.text.trim())
    .filter(Boolean)
    .join(" ");
  return { text, chunks: all };
}
