/**
 * @module ai/audio
 * Recorded answers → 16 kHz mono PCM, the input Whisper expects. Formats are told apart by magic
 * bytes (browsers' `File.type` is a guess from the name). Only libraries decode (DESIGN habit 10):
 * `mediabunny` demuxes WebM and Ogg into Opus packets, `opus-decoder` (libopus in WASM) decodes
 * them directly at 16 kHz, `wavefile` reads WAV and `wave-resampler` brings it to 16 kHz.
 */
import { ALL_FORMATS, BufferSource, EncodedPacketSink, Input } from "mediabunny";
import { resample } from "wave-resampler";
import { WaveFile } from "wavefile";
import { AudioDecodeError, AudioTooLongError, downmix, errorText, MAX_CHANNELS, MAX_RECORDING_S, startsWith, TARGET_SAMPLE_RATE_HZ } from "./audio-common.ts";
import { assertPacketCountFits, decodeOpusContainer, maxOpusPackets } from "./opus.ts";
import { sniffAudioFormat, type AudioFormat } from "../shared/audio-format.ts";

export { AudioDecodeError, AudioTooLongError, MAX_CHANNELS, TARGET_SAMPLE_RATE_HZ } from "./audio-common.ts";
export { maxOpusPackets } from "./opus.ts";
export { sniffAudioFormat, type AudioFormat };

/** Sample rates a WAV may declare (DESIGN §9): outside them a tiny file would decode to hours. */
export const MIN_SAMPLE_RATE_HZ = 8_000;
export const MAX_SAMPLE_RATE_HZ = 192_000;
export { MAX_RECORDING_S, RECORDING_GRACE_S, recordingLimitS } from "./audio-common.ts";

/** Decoded audio: `pcm` is mono at 16 kHz in [-1, 1]; `durationS` = pcm.length / 16000. */
export type DecodedAudio = { pcm: Float32Array; durationS: number; format: AudioFormat };

const FORMAT_NAMES: Record<AudioFormat, string> = { wav: "WAV", webm: "WebM", ogg: "Ogg" };

/** Decoding options. `maxDurationS`: the longest recording accepted, seconds (default MAX_RECORDING_S). */
export type DecodeOptions = { maxDurationS?: number };

/**
 * Decodes a whole recording to 16 kHz mono float PCM (channels are averaged). Memory is bounded
 * by the limit: a WAV's length is computed from its header before any sample is read, and Opus
 * is decoded in batches that stop as soon as the limit is passed.
 * @param bytes the file as uploaded: WAV (integer PCM 8–32 bit or float, 8–192 kHz, 1–8
 *   channels), WebM/Opus or Ogg/Opus.
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
  const pcm = format === "wav" ? decodeWav(bytes, limitS) : await decodeOpusContainer(bytes, format, limitS);
  if (pcm.length === 0) throw new AudioDecodeError(`the ${FORMAT_NAMES[format]} file holds no audio samples`);
  return { pcm, durationS: pcm.length / TARGET_SAMPLE_RATE_HZ, format };
}

/**
 * Checks a recording against a limit without decoding it, for uploads (DESIGN §9): a WAV by its
 * header (sample rate, channels, length), WebM and Ogg by their packets' timestamps and count
 * (more than `maxOpusPackets(limitS)` packets cannot fit, whatever the timestamps say).
 * Containers that cannot be read here pass; decoding refuses them later with the same bound.
 * @param limitS the longest recording accepted, seconds (see `recordingLimitS`)
 * @throws AudioTooLongError when longer than `limitS`; AudioDecodeError for a WAV header with a
 *   sample rate outside 8–192 kHz, no or too many channels
 */
export async function assertRecordingFits(bytes: Uint8Array, limitS: number): Promise<void> {
  const format = sniffAudioFormat(bytes);
  if (format === "wav") {
    const header = readWavHeader(bytes);
    if (header !== null) checkWavHeader(header, limitS);
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
    const track = await input.getPrimaryAudioTrack();
    // Timestamps are the sender's word; every Opus packet is ≥ 2.5 ms, so the count bounds the
    // length whatever they say. Demuxing stops at the bound, so a flood costs at most that much.
    if (track !== null && track.codec === "opus") {
      for await (const _ of new EncodedPacketSink(track).packets()) {
        if (++packets > maxPackets) break;
      }
    }
  } catch {
    if (packets <= maxPackets) return; // damaged or cut short: the decoder decides
    durationS = 0;
  } finally {
    input.dispose();
  }
  if (packets > maxPackets) throw new AudioTooLongError(limitS, packets / 400);
  if (durationS > limitS) throw new AudioTooLongError(limitS, durationS);
}

/** What a WAV's `fmt ` and `data` chunks say. `dataBytes` is what the file really holds. */
export type WavHeader = {
  audioFormat: number;
  /** WAVE_FORMAT_EXTENSIBLE's sub-format tag (1 PCM, 3 float); null for other format tags. */
  subFormat: number | null;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
  /** Where the samples start, and how many bytes of them the file really holds. */
  dataOffset: number;
  dataBytes: number;
};

/**
 * Reads a WAV's header by walking its RIFF chunks; never reads samples.
 * @returns the header, or null when the `fmt ` or `data` chunk is missing or short.
 */
export function readWavHeader(bytes: Uint8Array): WavHeader | null {
  if (sniffAudioFormat(bytes) !== "wav") return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fmt: Omit<WavHeader, "dataOffset" | "dataBytes"> | null = null;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    if (startsWith(bytes, "fmt ", at) && size >= 16 && at + 24 <= bytes.length) {
      fmt = {
        audioFormat: view.getUint16(at + 8, true),
        channels: view.getUint16(at + 10, true),
        sampleRate: view.getUint32(at + 12, true),
        blockAlign: view.getUint16(at + 20, true),
        bitsPerSample: view.getUint16(at + 22, true),
        subFormat: size >= 40 && at + 34 <= bytes.length ? view.getUint16(at + 32, true) : null,
      };
    } else if (startsWith(bytes, "data", at)) {
      return fmt === null ? null : { ...fmt, dataOffset: at + 8, dataBytes: Math.min(size, bytes.length - at - 8) };
    }
    at += 8 + size + (size & 1);
  }
  return null;
}

/** Frames (samples per channel) a WAV's data chunk holds; 4-bit ADPCM counted generously. */
function wavFrames(h: WavHeader): number {
  if (h.bitsPerSample >= 8 && h.blockAlign > 0) return Math.floor(h.dataBytes / h.blockAlign);
  return Math.floor((h.dataBytes * 2) / Math.max(1, h.channels));
}

/**
 * Refuses a WAV header before any allocation: rate outside 8–192 kHz, 0 or more than 8
 * channels, or longer than `limitS`.
 * @returns the length in seconds the header implies
 */
function checkWavHeader(h: WavHeader, limitS: number): number {
  if (h.sampleRate < MIN_SAMPLE_RATE_HZ || h.sampleRate > MAX_SAMPLE_RATE_HZ) {
    throw new AudioDecodeError(`the WAV file declares a sample rate of ${h.sampleRate} Hz; 8000 to 192000 Hz are accepted`);
  }
  if (h.channels < 1 || h.channels > MAX_CHANNELS) {
    throw new AudioDecodeError(`the WAV file declares ${h.channels} channels; 1 to ${MAX_CHANNELS} are accepted`);
  }
  const durationS = wavFrames(h) / h.sampleRate;
  if (durationS > limitS) throw new AudioTooLongError(limitS, durationS);
  return durationS;
}

type WavFmt = { audioFormat: number; numChannels: number; sampleRate: number; subformat?: number[] };
/** WAVE format tags wavefile reads: PCM, IEEE float, A-law, µ-law, IMA ADPCM, extensible (PCM). */
const WAV_PCM = 1;
const WAV_FLOAT = 3;
const WAV_EXTENSIBLE = 0xfffe;
const WAV_SUPPORTED = new Set([WAV_PCM, WAV_FLOAT, 6, 7, 0x11, WAV_EXTENSIBLE]);

function decodeWav(bytes: Uint8Array, limitS: number): Float32Array {
  const header = readWavHeader(bytes);
  if (header === null) throw new AudioDecodeError("the WAV file is damaged (no fmt or data chunk)");
  // Before anything is copied or converted: rate, channels and length from the header.
  checkWavHeader(header, limitS);
  const read = linearSampleReader(header);
  if (read !== null) return decodeLinearWav(bytes, header, read);
  if (wavFrames(header) * header.channels > MAX_EXPANDED_WAV_SAMPLES) {
    throw new AudioDecodeError(`the WAV file's A-law, µ-law or ADPCM data is too large to expand (over ${MAX_EXPANDED_WAV_SAMPLES} samples); send PCM WAV`);
  }
  return decodeWavWithLibrary(bytes);
}

/**
 * Most samples of an A-law, µ-law or ADPCM WAV the library expands at once (it works on the whole
 * file, ~20 bytes per sample at its peak): 10.4 min of 8 kHz telephone audio, about +100 MB.
 */
const MAX_EXPANDED_WAV_SAMPLES = 5_000_000;

/** Reads one linear sample at a byte offset as a float in [-1, 1]. */
type SampleReader = (view: DataView, at: number) => number;

/**
 * How to read a linear WAV's samples straight from its data chunk: integer PCM by container size
 * (unsigned 8-bit around 128, signed 16/24/32-bit) or IEEE float 32/64-bit; null for the
 * companded and ADPCM formats, which the library expands.
 */
function linearSampleReader(h: WavHeader): SampleReader | null {
  const tag = h.audioFormat === WAV_EXTENSIBLE ? h.subFormat : h.audioFormat;
  const bytesPerSample = h.blockAlign / h.channels;
  if (tag === WAV_FLOAT && bytesPerSample === 4) return (v, at) => v.getFloat32(at, true);
  if (tag === WAV_FLOAT && bytesPerSample === 8) return (v, at) => v.getFloat64(at, true);
  if (tag !== WAV_PCM) return null;
  if (bytesPerSample === 1) return (v, at) => (v.getUint8(at) - 128) / 128;
  if (bytesPerSample === 2) return (v, at) => v.getInt16(at, true) / 32_768;
  if (bytesPerSample === 3) return (v, at) => (v.getUint8(at) | (v.getUint8(at + 1) << 8) | (v.getInt8(at + 2) << 16)) / 8_388_608;
  if (bytesPerSample === 4) return (v, at) => v.getInt32(at, true) / 2_147_483_648;
  return null;
}

/**
 * Linear PCM or float WAV → 16 kHz mono, reading the data chunk window by window: only one window
 * of samples at the file's own rate exists at a time (a 64 MiB WAV at 192 kHz would otherwise be
 * 268 MB of floats before resampling even starts).
 */
function decodeLinearWav(bytes: Uint8Array, h: WavHeader, read: SampleReader): Float32Array {
  const frames = wavFrames(h);
  const view = new DataView(bytes.buffer, bytes.byteOffset + h.dataOffset, frames * h.blockAlign);
  const bytesPerSample = h.blockAlign / h.channels;
  const mono = (from: number, to: number): Float32Array => {
    const out = new Float32Array(to - from);
    for (let i = from; i < to; i++) {
      let sum = 0;
      for (let c = 0, at = i * h.blockAlign; c < h.channels; c++, at += bytesPerSample) sum += read(view, at);
      out[i - from] = sum / h.channels;
    }
    return out;
  };
  if (h.sampleRate === TARGET_SAMPLE_RATE_HZ) return mono(0, frames);
  return resampleInWindows(frames, h.sampleRate, mono);
}

/** A-law, µ-law and IMA ADPCM WAVs, expanded by the library (at most 2 samples per byte). */
function decodeWavWithLibrary(bytes: Uint8Array): Float32Array {
  let wav: WaveFile;
  try {
    wav = new WaveFile(bytes);
  } catch (err) {
    throw new AudioDecodeError(`the WAV file is damaged (${errorText(err)})`);
  }
  const fmt = wav.fmt as WavFmt;
  const isExtensibleNonPcm = fmt.audioFormat === WAV_EXTENSIBLE && fmt.subformat?.[0] !== WAV_PCM;
  if (!WAV_SUPPORTED.has(fmt.audioFormat) || isExtensibleNonPcm) {
    throw new AudioDecodeError(`the WAV file uses format tag ${fmt.audioFormat}; send PCM or float WAV`);
  }
  const { numChannels, sampleRate } = fmt;
  if (!(sampleRate > 0) || !(numChannels > 0)) {
    throw new AudioDecodeError("the WAV header gives no sample rate or channel count");
  }
  try {
    if (wav.bitDepth === "8a") wav.fromALaw();
    else if (wav.bitDepth === "8m") wav.fromMuLaw();
    else if (wav.bitDepth === "4") wav.fromIMAADPCM();
    // wavefile's own toBitDepth("32f") takes ~1 s per 10 s of audio, so its samples are scaled
    // to [-1, 1] here: floats as they are, unsigned 8-bit around 128, signed ints by container size.
    const raw = channelsOf(wav.getSamples(false, Float32Array), numChannels);
    const bits = Number.parseInt(wav.bitDepth, 10);
    const isFloat = wav.bitDepth === "32f" || wav.bitDepth === "64";
    const containerBits = ((bits - 1) | 7) + 1;
    const offset = !isFloat && containerBits === 8 ? 128 : 0;
    const scale = isFloat ? 1 : 2 ** (containerBits - 1);
    const mono = downmix(raw, offset, scale);
    if (sampleRate === TARGET_SAMPLE_RATE_HZ || mono.length === 0) return mono;
    return resampleInWindows(mono.length, sampleRate, (from, to) => mono.slice(from, to));
  } catch (err) {
    throw new AudioDecodeError(`the WAV samples could not be read (${errorText(err)})`);
  }
}

/** Resampling works on windows of this many seconds, each read with this much context either side. */
const RESAMPLE_WINDOW_S = 20;
const RESAMPLE_CONTEXT_S = 0.25;

/**
 * `length` mono samples at `rateHz` → 16 kHz, window by window: the library's cubic interpolation
 * after its low-pass filter (~10 ms per second of audio) makes garbage several times its input, so
 * a whole 10-minute recording at once would need hundreds of MB. Each window is resampled with a
 * quarter second of context on both sides, which is dropped, so the joins carry no filter edge.
 * @param samples returns a fresh array of samples [from, to) (the library filters it in place)
 */
function resampleInWindows(length: number, rateHz: number, samples: (from: number, to: number) => Float32Array): Float32Array {
  const ratio = TARGET_SAMPLE_RATE_HZ / rateHz;
  const out = new Float32Array(Math.floor(length * ratio));
  const window = RESAMPLE_WINDOW_S * rateHz;
  const context = Math.round(RESAMPLE_CONTEXT_S * rateHz);
  for (let start = 0; start < length; start += window) {
    const end = Math.min(length, start + window);
    const from = Math.max(0, start - context);
    const part = resample(samples(from, Math.min(length, end + context)), rateHz, TARGET_SAMPLE_RATE_HZ, { method: "cubic", LPF: true }) as Float64Array;
    const outStart = Math.round(start * ratio);
    const outEnd = Math.min(out.length, Math.round(end * ratio));
    const skip = Math.round((start - from) * ratio);
    out.set(part.subarray(skip, skip + (outEnd - outStart)), outStart);
  }
  return out;
}

function channelsOf(samples: unknown, numChannels: number): Float32Array[] {
  const list = numChannels === 1 ? [samples] : (samples as unknown[]);
  return list.map((s) => (s instanceof Float32Array ? s : Float32Array.from(s as ArrayLike<number>)));
}
