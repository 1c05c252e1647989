/**
 * @module ai/wav
 * WAV → 16 kHz mono float PCM from the layout {@link parseWav} decided, window by window: only one
 * window of samples at the file's own rate exists at a time, and an {@link OutputBudget} stops the
 * decoding as soon as its output passes the limit. Codecs are libraries: `alawmulaw` (G.711),
 * `imaadpcm` (IMA ADPCM, one block at a time), `wave-resampler` (to 16 kHz).
 */
import { alaw, mulaw } from "alawmulaw";
import { decodeBlock } from "imaadpcm";
import { resample } from "wave-resampler";
import { AudioTooLongError, type OutputBudget, TARGET_SAMPLE_RATE_HZ } from "./audio-common.ts";
import type { WavLayout } from "./wav-header.ts";

/** Mono samples of frames [from, to) at the file's rate, in [-1, 1]; a fresh array each call. */
type FrameReader = (from: number, to: number) => Float32Array;

/**
 * Decodes a WAV whose layout was read by `parseWav` (and never by anything else).
 * @param bytes the whole file; `layout` its layout
 * @param budget the output bound: throws AudioTooLongError as soon as a window would pass it
 * @returns 16 kHz mono PCM, `layout.frames × 16000 / rate` samples
 * @throws AudioTooLongError (header or output longer than the limit)
 */
export function decodeWav(bytes: Uint8Array, layout: WavLayout, budget: OutputBudget): Float32Array {
  // Before anything is allocated: the header's own length, then the output array it implies.
  if (layout.durationS > budget.limitS) throw new AudioTooLongError(budget.limitS, layout.durationS);
  return resampleInWindows(layout.frames, layout.sampleRate, readerOf(bytes, layout), budget);
}

function readerOf(bytes: Uint8Array, h: WavLayout): FrameReader {
  const data = bytes.subarray(h.dataOffset, h.dataOffset + h.dataBytes);
  if (h.codec === "ima-adpcm") return adpcmReader(data, h);
  if (h.codec === "alaw" || h.codec === "mulaw") {
    const codec = h.codec === "alaw" ? alaw : mulaw;
    return (from, to) => mono(codec.decode(data.subarray(from * h.channels, to * h.channels)), h.channels, 32_768);
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const read = linearSample(h);
  return (from, to) => {
    const out = new Float32Array(to - from);
    for (let i = from; i < to; i++) {
      let sum = 0;
      for (let c = 0, at = i * h.blockAlign; c < h.channels; c++, at += h.bytesPerSample) sum += read(view, at);
      out[i - from] = sum / h.channels;
    }
    return out;
  };
}

/** One linear sample at a byte offset as a float in [-1, 1]. */
function linearSample(h: WavLayout): (view: DataView, at: number) => number {
  if (h.codec === "float") return h.bytesPerSample === 8 ? (v, at) => v.getFloat64(at, true) : (v, at) => v.getFloat32(at, true);
  if (h.bytesPerSample === 1) return (v, at) => (v.getUint8(at) - 128) / 128;
  if (h.bytesPerSample === 2) return (v, at) => v.getInt16(at, true) / 32_768;
  if (h.bytesPerSample === 3) return (v, at) => (v.getUint8(at) | (v.getUint8(at + 1) << 8) | (v.getInt8(at + 2) << 16)) / 8_388_608;
  return (v, at) => v.getInt32(at, true) / 2_147_483_648;
}

/** Interleaved 16-bit samples of `channels` channels → mono floats. */
function mono(interleaved: Int16Array, channels: number, scale: number): Float32Array {
  const out = new Float32Array(Math.floor(interleaved.length / channels));
  const divisor = scale * channels;
  for (let i = 0, at = 0; i < out.length; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += interleaved[at++]!;
    out[i] = sum / divisor;
  }
  return out;
}

/** Highest step index of IMA ADPCM; a block header may claim more, which the codec would index past its table. */
const IMA_MAX_STEP_INDEX = 88;

/**
 * IMA ADPCM (Microsoft WAV layout): each block restarts the decoder from its per-channel header,
 * so the frames [from, to) are decoded from the blocks that cover them and nothing else. A
 * channel's block is gathered from its header and its 4-byte groups, then decoded by the library.
 */
function adpcmReader(data: Uint8Array, h: WavLayout): FrameReader {
  const header = 4 * h.channels;
  return (from, to) => {
    const first = Math.floor(from / h.framesPerBlock);
    const out = new Float32Array(to - from);
    for (let b = first; b * h.framesPerBlock < to; b++) {
      const block = data.subarray(b * h.blockAlign, Math.min(data.length, (b + 1) * h.blockAlign));
      const groups = Math.floor((block.length - header) / header);
      for (let c = 0; c < h.channels; c++) {
        const own = [block[4 * c]!, block[4 * c + 1]!, Math.min(block[4 * c + 2]!, IMA_MAX_STEP_INDEX), 0];
        for (let g = 0; g < groups; g++) for (let k = 0, at = header + g * header + 4 * c; k < 4; k++) own.push(block[at + k]!);
        // The library repeats the header's sample; the format has it once (1 + 8 per group).
        const samples = decodeBlock(own);
        for (let i = 1, frame = b * h.framesPerBlock; i < samples.length; i++, frame++) {
          if (frame >= from && frame < to) out[frame - from]! += samples[i]! / (32_768 * h.channels);
        }
      }
    }
    return out;
  };
}

/** Resampling works on windows of this many seconds, each read with this much context either side. */
const RESAMPLE_WINDOW_S = 20;
const RESAMPLE_CONTEXT_S = 0.25;

/**
 * `length` mono frames at `rateHz` → 16 kHz, window by window: the library's cubic interpolation
 * after its low-pass filter (~10 ms per second of audio) makes garbage several times its input, so
 * a whole 10-minute recording at once would need hundreds of MB. Each window is resampled with a
 * quarter second of context on both sides, which is dropped, so the joins carry no filter edge.
 * Each window's output is charged to `budget` before it is made.
 */
function resampleInWindows(length: number, rateHz: number, read: FrameReader, budget: OutputBudget): Float32Array {
  const ratio = TARGET_SAMPLE_RATE_HZ / rateHz;
  const out = new Float32Array(Math.min(Math.floor(length * ratio), budget.maxSamples + 1));
  const window = RESAMPLE_WINDOW_S * rateHz;
  const context = Math.round(RESAMPLE_CONTEXT_S * rateHz);
  for (let start = 0; start < length; start += window) {
    const end = Math.min(length, start + window);
    const outStart = Math.round(start * ratio);
    const outEnd = Math.min(Math.floor(length * ratio), Math.round(end * ratio));
    budget.take(outEnd - outStart);
    if (rateHz === TARGET_SAMPLE_RATE_HZ) {
      out.set(read(start, end), outStart);
      continue;
    }
    const from = Math.max(0, start - context);
    const part = resample(read(from, Math.min(length, end + context)), rateHz, TARGET_SAMPLE_RATE_HZ, { method: "cubic", LPF: true }) as Float64Array;
    const skip = Math.round((start - from) * ratio);
    out.set(part.subarray(skip, skip + (outEnd - outStart)), outStart);
  }
  return out;
}
