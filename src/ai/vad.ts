/**
 * @module ai/vad
 * Voice-activity detection before Whisper (issue 27, "Skip silence"; docs/decisions/vad.md):
 * frame energy in dB against the clip's own noise floor, with padding so word edges survive.
 * Pauses longer than {@link VAD_MAX_PAUSE_S} are cut out of the audio Whisper sees, and audio
 * with no speech at all is never given to Whisper (which would otherwise hallucinate text such
 * as "Thank you for watching" in silence). The cut map turns Whisper's timestamps (seconds in
 * the cut audio) back into seconds of the original recording.
 */

/** Energy frame, seconds (20 ms: short enough for word edges, long enough for a stable RMS). */
const FRAME_S = 0.02;
/** A frame is speech when it is this many dB above the clip's noise floor... */
const SPEECH_ABOVE_FLOOR_DB = 10;
/** ...and above this absolute level (dBFS): near-digital silence is never speech. */
const SPEECH_MIN_DBFS = -55;
/** Floor of the floor: a clip of digital zeros has a floor of -inf otherwise. */
const FLOOR_MIN_DBFS = -90;
/**
 * A clip whose floor is louder than this (dBFS) never goes quiet — a loud room, a held tone,
 * speech without a breath — so pauses cannot be told from speech and all of it is kept.
 */
const LOUD_FLOOR_DBFS = -35;
/** The noise floor is this quantile of the frames' levels (most recordings pause somewhere). */
const FLOOR_QUANTILE = 0.1;
/** Kept around every speech stretch, seconds: word onsets/tails are quieter than their cores. */
const PAD_S = 0.25;
/** Pauses longer than this (seconds) are cut; shorter ones stay, as speech rhythm. */
export const VAD_MAX_PAUSE_S = 1;
/** A stretch of speech frames shorter than this (seconds) is a click, not a word. */
const MIN_SPEECH_S = 0.06;

/** One kept piece: `durationS` seconds from `sourceS` in the original are at `cutS` in the cut audio. */
export type CutPiece = { sourceS: number; cutS: number; durationS: number };

/** What {@link skipSilence} returns: the audio for Whisper and how to map its times back. */
export type VadResult = {
  /** The kept audio, same sample rate; empty when there is no speech. */
  pcm: Float32Array;
  /** The kept pieces in order; empty when there is no speech. */
  pieces: CutPiece[];
  /** The noise floor measured, dBFS (for logs and benches). */
  floorDb: number;
};

const dbOf = (meanSquare: number) => 10 * Math.log10(meanSquare + 1e-12);

/**
 * Finds speech in mono PCM (`pcm` in [-1, 1] at `rateHz`) and cuts pauses longer than
 * {@link VAD_MAX_PAUSE_S} seconds out of it. Each speech stretch keeps {@link PAD_S} seconds of
 * context on both sides. A clip that never gets quieter than -35 dBFS is kept whole. When the
 * whole clip is kept, `pcm` is the input itself (no copy).
 * @returns the cut audio and its map; `pieces` is empty for a clip without speech.
 */
export function skipSilence(pcm: Float32Array, rateHz: number): VadResult {
  const frame = Math.max(1, Math.round(FRAME_S * rateHz));
  const frames = Math.floor(pcm.length / frame) + (pcm.length % frame > 0 ? 1 : 0);
  if (frames === 0) return { pcm: new Float32Array(0), pieces: [], floorDb: FLOOR_MIN_DBFS };
  const levels = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    const end = Math.min(pcm.length, (f + 1) * frame);
    let sum = 0;
    for (let i = f * frame; i < end; i++) sum += pcm[i]! * pcm[i]!;
    levels[f] = dbOf(sum / (end - f * frame));
  }
  const sorted = Float64Array.from(levels).sort();
  const floorDb = Math.max(FLOOR_MIN_DBFS, sorted[Math.floor(FLOOR_QUANTILE * (frames - 1))]!);
  const threshold = Math.max(floorDb + SPEECH_ABOVE_FLOOR_DB, SPEECH_MIN_DBFS);
  const seconds = (samples: number) => samples / rateHz;
  if (floorDb > LOUD_FLOOR_DBFS) return { pcm, pieces: [{ sourceS: 0, cutS: 0, durationS: seconds(pcm.length) }], floorDb };

  // Speech runs in frames, clicks dropped, then padded and merged across short pauses.
  const minFrames = Math.ceil(MIN_SPEECH_S / FRAME_S);
  const runs: [number, number][] = [];
  for (let f = 0; f < frames; ) {
    if (levels[f]! < threshold) {
      f++;
      continue;
    }
    const start = f;
    while (f < frames && levels[f]! >= threshold) f++;
    if (f - start >= minFrames) runs.push([start, f]);
  }
  const pad = Math.round(PAD_S / FRAME_S);
  const maxPause = Math.round(VAD_MAX_PAUSE_S / FRAME_S);
  const kept: [number, number][] = [];
  for (const [s, e] of runs) {
    const start = Math.max(0, s - pad);
    const end = Math.min(frames, e + pad);
    const last = kept.at(-1);
    if (last && start - last[1] <= maxPause) last[1] = Math.max(last[1], end);
    else kept.push([start, end]);
  }
  if (kept.length === 0) return { pcm: new Float32Array(0), pieces: [], floorDb };
  if (kept.length === 1 && kept[0]![0] === 0 && kept[0]![1] === frames) {
    return { pcm, pieces: [{ sourceS: 0, cutS: 0, durationS: seconds(pcm.length) }], floorDb };
  }
  const spans = kept.map(([s, e]) => [s * frame, Math.min(pcm.length, e * frame)] as const);
  const out = new Float32Array(spans.reduce((n, [s, e]) => n + e - s, 0));
  const pieces: CutPiece[] = [];
  let at = 0;
  for (const [s, e] of spans) {
    out.set(pcm.subarray(s, e), at);
    pieces.push({ sourceS: seconds(s), cutS: seconds(at), durationS: seconds(e - s) });
    at += e - s;
  }
  return { pcm: out, pieces, floorDb };
}

/**
 * Maps `t` (seconds in the cut audio) to seconds in the original recording. At a boundary
 * between two pieces a `start` goes to the later piece's start and an `end` to the earlier
 * piece's end, so a segment never swallows the pause that was cut. Times past the end clamp to
 * the last piece's end.
 */
export function toSourceTime(pieces: CutPiece[], t: number, edge: "start" | "end"): number {
  if (pieces.length === 0) return t;
  const eps = 1e-6;
  let piece = pieces[0]!;
  for (const p of pieces) {
    const isInside = edge === "start" ? p.cutS <= t + eps : p.cutS < t - eps;
    if (isInside) piece = p;
    else break;
  }
  return piece.sourceS + Math.min(Math.max(0, t - piece.cutS), piece.durationS);
}
