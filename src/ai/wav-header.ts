/**
 * @module ai/wav-header
 * The one reading of a WAV file (docs/decisions/audio-parsing.md): the upload check
 * (`assertRecordingFits`) and the decoder (`decodeAudio`) both take what a WAV is — codec, rate,
 * channels, where its samples are and how many frames they make — from {@link parseWav}, and no
 * other code reads a WAV header. A file that could be read two ways (two `fmt ` or `data`
 * chunks, `fmt ` after `data`, a block size that disagrees with the channels and bits) is refused
 * rather than guessed at: the 2026 two-`fmt ` bomb declared 8 kHz to the check and 100 Hz to the
 * library that decoded it.
 */
import { AudioDecodeError, MAX_CHANNELS, startsWith } from "./audio-common.ts";

/** Sample rates a WAV may declare (DESIGN §9): outside them a tiny file would decode to hours. */
export const MIN_SAMPLE_RATE_HZ = 8_000;
export const MAX_SAMPLE_RATE_HZ = 192_000;

/** How a WAV's samples are coded: linear integer PCM, IEEE float, G.711 A-law / µ-law, IMA ADPCM. */
export type WavCodec = "pcm" | "float" | "alaw" | "mulaw" | "ima-adpcm";

/** A WAV as Earshot reads it. Every length is what the file really holds, not what it claims. */
export type WavLayout = {
  codec: WavCodec;
  channels: number;
  sampleRate: number;
  /** Bytes per block: one frame for linear and G.711 codecs, one ADPCM block (all channels). */
  blockAlign: number;
  /** Bytes per sample of one channel for linear PCM and float (1–4, or 8 for 64-bit float). */
  bytesPerSample: number;
  /** Frames (samples per channel) per block: 1, or an ADPCM block's 1 + 8 per 4-byte group. */
  framesPerBlock: number;
  /** Where the samples start, and how many bytes of them the file really holds. */
  dataOffset: number;
  dataBytes: number;
  /** Frames the data holds (a cut-off ADPCM block counts the whole groups it has). */
  frames: number;
  /** frames / sampleRate, seconds. */
  durationS: number;
};

const TAG_PCM = 1;
const TAG_FLOAT = 3;
const TAG_ALAW = 6;
const TAG_MULAW = 7;
const TAG_IMA_ADPCM = 0x11;
const TAG_EXTENSIBLE = 0xfffe;

type Fmt = { tag: number; channels: number; sampleRate: number; blockAlign: number; bits: number; size: number; at: number };

/**
 * Walks a WAV's RIFF chunks (each padded to an even size, RIFF 1.0) and decides what it is.
 * Never reads samples; costs one pass over the chunk headers.
 * @param bytes a file that starts `RIFF....WAVE` (see `sniffAudioFormat`)
 * @returns the layout, with frames and duration from the bytes present
 * @throws AudioDecodeError when the file is ambiguous (two `fmt ` or `data` chunks, `fmt ` after
 *   `data`), has no complete `fmt ` or no `data` chunk, uses another format tag, a rate outside
 *   8–192 kHz, 0 or more than 8 channels, or a block size that disagrees with its channels and bits
 */
export function parseWav(bytes: Uint8Array): WavLayout {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fmt: Fmt | null = null;
  let data: { offset: number; bytes: number } | null = null;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    if (startsWith(bytes, "fmt ", at)) {
      if (data !== null) throw new AudioDecodeError("the WAV file's fmt chunk comes after its data chunk");
      if (fmt !== null) throw new AudioDecodeError("the WAV file has two fmt chunks; a recording has one");
      if (size < 16 || at + 8 + size > bytes.length) throw new AudioDecodeError("the WAV file's fmt chunk is cut short");
      fmt = {
        tag: view.getUint16(at + 8, true),
        channels: view.getUint16(at + 10, true),
        sampleRate: view.getUint32(at + 12, true),
        blockAlign: view.getUint16(at + 20, true),
        bits: view.getUint16(at + 22, true),
        size,
        at: at + 8,
      };
    } else if (startsWith(bytes, "data", at)) {
      if (data !== null) throw new AudioDecodeError("the WAV file has two data chunks; a recording has one");
      if (fmt === null) throw new AudioDecodeError("the WAV file's data chunk comes before its fmt chunk");
      data = { offset: at + 8, bytes: Math.min(size, bytes.length - at - 8) };
    }
    at += 8 + size + (size & 1);
  }
  if (fmt === null) throw new AudioDecodeError("the WAV file is damaged (no fmt chunk)");
  if (data === null) throw new AudioDecodeError("the WAV file is damaged (no data chunk)");
  return layoutOf(view, fmt, data);
}

function layoutOf(view: DataView, f: Fmt, data: { offset: number; bytes: number }): WavLayout {
  if (f.sampleRate < MIN_SAMPLE_RATE_HZ || f.sampleRate > MAX_SAMPLE_RATE_HZ) {
    throw new AudioDecodeError(`the WAV file declares a sample rate of ${f.sampleRate} Hz; 8000 to 192000 Hz are accepted`);
  }
  if (f.channels < 1 || f.channels > MAX_CHANNELS) {
    throw new AudioDecodeError(`the WAV file declares ${f.channels} channels; 1 to ${MAX_CHANNELS} are accepted`);
  }
  const codec = codecOf(view, f);
  const base = { codec, channels: f.channels, sampleRate: f.sampleRate, blockAlign: f.blockAlign, dataOffset: data.offset, dataBytes: data.bytes };
  const disagree = () =>
    new AudioDecodeError(`the WAV header's block size (${f.blockAlign} bytes) disagrees with its ${f.channels} channels of ${f.bits}-bit ${codec} samples`);
  if (codec === "ima-adpcm") {
    // A block: a 4-byte header per channel (its first sample), then 4-byte groups of 8 samples per channel.
    const header = 4 * f.channels;
    if (f.bits !== 4 || f.blockAlign <= header || (f.blockAlign - header) % header !== 0) throw disagree();
    const framesPerBlock = 1 + ((f.blockAlign - header) / header) * 8;
    // The extension's samples-per-block, when present, must say the same (else readers could differ).
    if (f.size >= 20 && view.getUint16(f.at + 16, true) >= 2 && view.getUint16(f.at + 18, true) !== framesPerBlock) throw disagree();
    const whole = Math.floor(data.bytes / f.blockAlign);
    const rest = data.bytes - whole * f.blockAlign;
    const partial = rest >= header ? 1 + Math.floor((rest - header) / header) * 8 : 0;
    return finish({ ...base, bytesPerSample: 0, framesPerBlock, frames: whole * framesPerBlock + partial });
  }
  const bytesPerSample = f.blockAlign / f.channels;
  const valid =
    codec === "pcm"
      ? Number.isInteger(bytesPerSample) && bytesPerSample >= 1 && bytesPerSample <= 4 && f.bits > (bytesPerSample - 1) * 8 && f.bits <= bytesPerSample * 8
      : codec === "float"
        ? (f.bits === 32 || f.bits === 64) && bytesPerSample === f.bits / 8
        : f.bits === 8 && bytesPerSample === 1;
  if (!valid) throw disagree();
  return finish({ ...base, bytesPerSample, framesPerBlock: 1, frames: Math.floor(data.bytes / f.blockAlign) });
}

function finish(layout: Omit<WavLayout, "durationS">): WavLayout {
  return { ...layout, durationS: layout.frames / layout.sampleRate };
}

function codecOf(view: DataView, f: Fmt): WavCodec {
  // WAVE_FORMAT_EXTENSIBLE names its real format in the first two bytes of its sub-format GUID.
  const tag = f.tag === TAG_EXTENSIBLE && f.size >= 40 ? view.getUint16(f.at + 24, true) : f.tag;
  if (tag === TAG_PCM) return "pcm";
  if (tag === TAG_FLOAT) return "float";
  if (f.tag !== TAG_EXTENSIBLE) {
    if (tag === TAG_ALAW) return "alaw";
    if (tag === TAG_MULAW) return "mulaw";
    if (tag === TAG_IMA_ADPCM) return "ima-adpcm";
  }
  throw new AudioDecodeError(`the WAV file uses format tag ${tag}; send PCM, float, A-law, µ-law or IMA ADPCM WAV`);
}
