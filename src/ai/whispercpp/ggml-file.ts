/**
 * @module ai/whispercpp/ggml-file
 * Checks a whisper.cpp model file (the ggml format of whisper.cpp's models/convert-pt-to-ggml.py:
 * magic, 11 int32 hyper-parameters, mel filters, vocabulary, then tensors each with a header and
 * its data) BEFORE whisper.cpp opens it. whisper.cpp's loader does not check its reads: a
 * truncated or damaged file can make it allocate from garbage lengths or read past the end. Here
 * every length is bounded and every tensor must lie inside the file, which must end exactly
 * after the last one; only the headers are read (a few hundred small reads), not the weights.
 */
import fs from "node:fs";
import { ModelMissingError } from "../asr.ts";

const GGML_MAGIC = 0x67676d6c;
/** How far a read of a token's length reads ahead: the whole vocabulary in a few reads. */
const VOCABULARY_READ_AHEAD_BYTES = 1 << 20;
/** Tensor types whisper.cpp model files use: bytes per block and values per block (ggml.c type_traits). */
const TYPE_SIZES: Record<number, [bytes: number, block: number]> = {
  0: [4, 1], // f32
  1: [2, 1], // f16
  2: [18, 32], // q4_0
  3: [20, 32], // q4_1
  6: [22, 32], // q5_0
  7: [24, 32], // q5_1
  8: [34, 32], // q8_0
  10: [84, 256], // q2_K
  11: [110, 256], // q3_K
  12: [144, 256], // q4_K
  13: [176, 256], // q5_K
  14: [210, 256], // q6_K
  30: [2, 1], // bf16
};

/** A ggml file is damaged (truncated, not a Whisper model, …); fetching it again fixes it. */
export class GgmlFileError extends Error {
  constructor(file: string, reason: string) {
    super(`The whisper.cpp model file "${file}" is damaged (${reason}). Run \`earshot models fetch\` to install it again.`);
    this.name = "GgmlFileError";
  }
}

/** What the header says. */
export type GgmlHeader = { nVocab: number; nAudioLayers: number; nTextLayers: number; nState: number; multilingual: boolean };

/** `N` numbers as a tuple type (`number[]` when `N` is not a literal). */
type Int32s<N extends number, T extends number[] = []> = number extends N ? number[] : T["length"] extends N ? T : Int32s<N, [...T, number]>;

/**
 * Every read of the file, bounded by its size. A read may ask for `readAhead` more bytes: later
 * reads inside them are served from memory (the vocabulary's many small lengths: a few 1 MiB
 * reads, not one per token). The tensor headers, spread between the weights, read no more than
 * they need.
 */
class Reader {
  private window: Buffer = Buffer.alloc(0);
  private windowAt = 0;
  constructor(
    private readonly fd: number,
    readonly size: number,
    private readonly file: string,
  ) {}
  /**
   * Throws unless the file reaches byte `end` (exclusive).
   * @param what the part of the file that needs it (for the message)
   */
  need(end: number, what: string): void {
    if (end > this.size) throw new GgmlFileError(this.file, `${what} cut short: needs byte ${end}, the file has ${this.size}`);
  }
  /** `n` bytes at byte `at`. @throws GgmlFileError when they lie past the end, or the read comes back short */
  bytes(at: number, n: number, what: string, readAhead = 0): Buffer {
    if (at < 0 || n < 0) throw new GgmlFileError(this.file, `${what} at an impossible place`);
    this.need(at + n, what);
    const offset = at - this.windowAt;
    if (offset >= 0 && offset + n <= this.window.length) return this.window.subarray(offset, offset + n);
    const length = Math.min(this.size - at, n + readAhead);
    const buf = Buffer.alloc(length);
    if (length > 0 && fs.readSync(this.fd, buf, 0, length, at) !== length) throw new GgmlFileError(this.file, "short read");
    [this.window, this.windowAt] = [buf, at];
    return buf.subarray(0, n);
  }
  /** `n` little-endian int32s at byte `at` (see {@link bytes}). */
  ints<N extends number>(at: number, n: N, what: string, readAhead = 0): Int32s<N> {
    const buf = this.bytes(at, 4 * n, what, readAhead);
    return Array.from({ length: n }, (_, i) => buf.readInt32LE(4 * i)) as Int32s<N>;
  }
}

/**
 * Validates `file` as described in the module comment.
 * @returns the header's shape and whether the model is multilingual (51865 tokens or more)
 * @throws ModelMissingError when the file does not exist; GgmlFileError when it is damaged
 */
export function checkGgmlFile(file: string): GgmlHeader {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    throw new ModelMissingError(file, "whisper.cpp model file");
  }
  try {
    const r = new Reader(fd, fs.fstatSync(fd).size, file);
    const [magic, nVocab, nAudioCtx, nAudioState, nAudioHead, nAudioLayers, nTextCtx, nTextState, nTextHead, nTextLayers, nMels, ftype] = r.ints(
      0,
      12,
      "header",
    );
    if (magic !== GGML_MAGIC) throw new GgmlFileError(file, "not a ggml Whisper file");
    const inRange = (x: number, max: number) => Number.isInteger(x) && x >= 1 && x <= max;
    const shapeOk =
      inRange(nVocab, 1_000_000) &&
      inRange(nAudioCtx, 100_000) &&
      inRange(nAudioState, 65_536) &&
      inRange(nAudioHead, 1024) &&
      inRange(nAudioLayers, 256) &&
      inRange(nTextCtx, 100_000) &&
      inRange(nTextState, 65_536) &&
      inRange(nTextHead, 1024) &&
      inRange(nTextLayers, 256) &&
      inRange(nMels, 1024) &&
      ftype >= 0;
    if (!shapeOk) throw new GgmlFileError(file, "impossible hyper-parameters");
    let at = 48;
    const [melRows, melCols] = r.ints(at, 2, "mel filters");
    if (!inRange(melRows, 1024) || !inRange(melCols, 65_536)) throw new GgmlFileError(file, "impossible mel filter shape");
    at += 8 + melRows * melCols * 4;
    const [words] = r.ints(at, 1, "vocabulary");
    if (words < 0 || words > nVocab) throw new GgmlFileError(file, "impossible vocabulary size");
    at += 4;
    for (let i = 0; i < words; i++) {
      const [length] = r.ints(at, 1, "vocabulary", VOCABULARY_READ_AHEAD_BYTES);
      if (length < 0 || length > 1024) throw new GgmlFileError(file, "impossible token length");
      at += 4 + length;
      r.need(at, "vocabulary");
    }
    let tensors = 0;
    while (at < r.size) {
      const [nDims, nameLength, type] = r.ints(at, 3, "tensor header");
      if (!inRange(nDims, 4) || !inRange(nameLength, 512)) throw new GgmlFileError(file, `impossible tensor header at byte ${at}`);
      const typeSize = TYPE_SIZES[type];
      if (!typeSize) throw new GgmlFileError(file, `unknown tensor type ${type}`);
      const dims = r.ints(at + 12, nDims, "tensor header");
      if (!dims.every((d) => inRange(d, 1 << 24))) throw new GgmlFileError(file, `impossible tensor shape at byte ${at}`);
      const values = dims.reduce((a, b) => a * b, 1);
      if (values % typeSize[1] !== 0) throw new GgmlFileError(file, `tensor size does not fit its type at byte ${at}`);
      at += 12 + 4 * nDims + nameLength + (values / typeSize[1]) * typeSize[0];
      r.need(at, "tensor");
      tensors++;
    }
    // whisper.cpp's own count: 2 conv + pos + 2 ln per encoder, 15 per encoder layer, … (src/whisper.cpp).
    const expected = 5 + 2 + 15 * nAudioLayers + 4 + 24 * nTextLayers;
    if (tensors < expected) throw new GgmlFileError(file, `${tensors} tensors, a Whisper of this shape has ${expected}`);
    return { nVocab, nAudioLayers, nTextLayers, nState: nTextState, multilingual: nVocab >= 51865 };
  } finally {
    fs.closeSync(fd);
  }
}
