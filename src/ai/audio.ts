/**
 * @module ai/audio
 * Recorded answers → 16 kHz mono PCM, the input Whisper expects, and the upload check that
 * decides before storing. Formats are told apart by magic bytes (browsers' `File.type` is a guess
 * from the name). A WAV is read by one parser (ai/wav-header) for both the check and the decoder;
 * every decoder stops at the limit by what it outputs (docs/decisions/audio-parsing.md). Only
 * libraries decode (DESIGN habit 10): `mediabunny` demuxes WebM and Ogg into Opus packets,
 * `opus-decoder` (libopus in WASM) decodes them at 16 kHz (ai/opus); ai/wav decodes WAV.
 */
import { ALL_FORMATS, BufferSource, EncodedPacketSink, Input } from "mediabunny";
import { AudioDecodeError, AudioTooLongError, MAX_RECORDING_S, OutputBudget, TARGET_SAMPLE_RATE_HZ } from "./audio-common.ts";
import { assertPacketCountFits, decodeOpusContainer, maxOpusPackets, openOpusTrack } from "./opus.ts";
import { decodeWav } from "./wav.ts";
import { parseWav } from "./wav-header.ts";
import { sniffAudioFormat, type AudioFormat } from "../shared/audio-format.ts";

export { AudioDecodeError, AudioTooLongError, MAX_CHANNELS, TARGET_SAMPLE_RATE_HZ } from "./audio-common.ts";
export { maxOpusPackets } from "./opus.ts";
export { MAX_SAMPLE_RATE_HZ, MIN_SAMPLE_RATE_HZ, parseWav, type WavLayout } from "./wav-header.ts";
export { sniffAudioFormat, type AudioFormat };
export { MAX_RECORDING_S, RECORDING_GRACE_S, recordingLimitS } from "./audio-common.ts";

/** Decoded audio: `pcm` is mono at 16 kHz in [-1, 1]; `durationS` = pcm.length / 16000. */
export type DecodedAudio = { pcm: Float32Array; durationS: number; format: AudioFormat };

const FORMAT_NAMES: Record<AudioFormat, string> = { wav: "WAV", webm: "WebM", ogg: "Ogg" };

/** Decoding options. `maxDurationS`: the longest recording accepted, seconds (default MAX_RECORDING_S). */
export type DecodeOptions = { maxDurationS?: number };

/**
 * Decodes a whole recording to 16 kHz mono float PCM (channels are averaged). Memory is bounded
 * by the limit: a WAV's length is computed from its header (the same `parseWav` reading as the
 * upload check) before any sample is read; every decoder works window by window or batch by batch
 * and stops with AudioTooLongError as soon as its output passes the limit (+ 0.25 s), whatever
 * the container claimed.
 * @param bytes the file as uploaded: WAV (integer PCM 8–32 bit, float, A-law, µ-law or IMA
 *   ADPCM; 8–192 kHz, 1–8 channels), WebM/Opus or Ogg/Opus.
 * @returns `{ pcm, durationS, format }`, duration in seconds.
 * @throws AudioTooLongError when the recording is longer than `maxDurationS`;
 *   AudioDecodeError when the bytes are empty, not a known format, damaged, use another codec or
 *   sample rate, or hold no samples.
 */
export async function decodeAudio(bytes: Uint8Array, opts: DecodeOptions = {}): Promise<DecodedAudio> {
  if (bytes.length === 0) throw new AudioDecodeError("the recording is empty (0 bytes)");
  const format = sniffAudioFormat(bytes);
  if (format === null) {
    throw new AudioDecodeError("the file is not WAV, WebM or Ogg audio (unrecognised leading bytes)");
  }
  const limitS = Math.min(opts.maxDurationS ?? MAX_RECORDING_S, MAX_RECORDING_S);
  const budget = new OutputBudget(limitS);
  const pcm = format === "wav" ? decodeWav(bytes, parseWav(bytes), budget) : await decodeOpusContainer(bytes, format, budget);
  if (pcm.length === 0) throw new AudioDecodeError(`the ${FORMAT_NAMES[format]} file holds no audio samples`);
  // The budget lets the end of the last Opus packet through (its tolerance); what is kept never
  // passes the limit itself, so a duration or a live partial is never longer than accepted.
  const kept = pcm.length > limitS * TARGET_SAMPLE_RATE_HZ ? pcm.subarray(0, Math.floor(limitS * TARGET_SAMPLE_RATE_HZ)) : pcm;
  return { pcm: kept, durationS: kept.length / TARGET_SAMPLE_RATE_HZ, format };
}

/**
 * Checks a recording against a limit without decoding it, for uploads (DESIGN §9): a WAV by
 * `parseWav`, the reading the decoder uses (codec, rate, channels, length), WebM and Ogg by their
 * packets' timestamps and count (more than `maxOpusPackets(limitS)` packets cannot fit, whatever
 * the timestamps say), with the decoder's reading of the track (`openOpusTrack`: Opus, ≤ 8
 * channels). WebM and Ogg that cannot be demuxed here pass; the decoder refuses them later, and
 * stops any recording whose decoded output passes the limit.
 * @param limitS the longest recording accepted, seconds (see `recordingLimitS`)
 * @throws AudioTooLongError when longer than `limitS`; AudioDecodeError for a WAV the decoder
 *   would refuse (see `parseWav`: ambiguous chunks, another codec, a rate outside 8–192 kHz…),
 *   or a WebM/Ogg whose audio is not Opus or has more than 8 channels
 */
export async function assertRecordingFits(bytes: Uint8Array, limitS: number): Promise<void> {
  const format = sniffAudioFormat(bytes);
  if (format === "wav") {
    const { durationS } = parseWav(bytes);
    if (durationS > limitS) throw new AudioTooLongError(limitS, durationS);
    return;
  }
  if (format === null) return;
  assertPacketCountFits(bytes, format, limitS);
  const input = new Input({ source: new BufferSource(bytes), formats: ALL_FORMATS });
  let durationS: number;
  let packets = 0;
  const maxPackets = maxOpusPackets(limitS);
  try {
    durationS = await input.computeDuration();
    // The decoder's own reading of the track: another codec or too many channels is refused here.
    const opus = await openOpusTrack(input, FORMAT_NAMES[format]);
    // Timestamps are the sender's word; every Opus packet is ≥ 2.5 ms, so the count bounds the
    // length whatever they say. Demuxing stops at the bound, so a flood costs at most that much.
    if (opus !== null) {
      for await (const _ of new EncodedPacketSink(opus.track).packets()) {
        if (++packets > maxPackets) break;
      }
    }
  } catch (err) {
    if (err instanceof AudioDecodeError) throw err;
    if (packets <= maxPackets) return; // damaged or cut short: the decoder decides
    durationS = 0;
  } finally {
    input.dispose();
  }
  if (packets > maxPackets) throw new AudioTooLongError(limitS, packets / 400);
  if (durationS > limitS) throw new AudioTooLongError(limitS, durationS);
}
