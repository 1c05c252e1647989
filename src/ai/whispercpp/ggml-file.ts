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

/** Reads int32s at a position, with bounds. */
class Reader {
  constructor(
    private readonly fd: number,
    readonly size: number,
    private readonly file: string,
  ) {}
  bytes(at: number, n: number): Buffer {
    if (at < 0 || n < 0 || at + n > this.size) throw new GgmlFileError(this.file, `ends at byte ${this.size}, needs ${at + n}`);
    const buf = Buffer.alloc(n);
    if (n > 0 && fs.readSync(this.fd, buf, 0, n, at) !== n) throw new GgmlFileError(this.file, "short read");
    return buf;
  }
  ints(at: number, n: number): number[] {
    const buf = this.bytes(at, 4 * n);
    return Array.from({ length: n }, (_, i) => buf.readInt32LE(4 * i));
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
    const [magic, nVocab, nAudioCtx, nAudioState, nAudioHead, nAudioLayers, nTextCtx, nTextState, nTextHead, nTextLayers, nMels, ftype] = r.ints(0, 12) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
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
    const [melRows, melCols] = r.ints(at, 2) as [number, number];
    if (!inRange(melRows, 1024) || !inRange(melCols, 65_536)) throw new GgmlFileError(file, "impossible mel filter shape");
    at += 8 + melRows * melCols * 4;
    const [words] = r.ints(at, 1) as [number];
    if (words < 0 || words > nVocab) throw new GgmlFileError(file, "impossible vocabulary size");
    at += 4;
    // The vocabulary: read in 1 MiB chunks, lengths walked in memory.
    let chunk: Buffer = Buffer.alloc(0);
    let chunkAt = at;
    for (let i = 0; i < words; i++) {
      if (at + 4 - chunkAt > chunk.length) [chunk, chunkAt] = [r.bytes(at, Math.min(r.size - at, 1 << 20)), at];
      if (at + 4 - chunkAt > chunk.length) throw new GgmlFileError(file, "vocabulary cut short");
      const len = chunk.readUInt32LE(at - chunkAt);
      if (len > 1024) throw new GgmlFileError(file, "impossible token length");
      at += 4 + len;
      if (at > r.size) throw new GgmlFileError(file, "vocabulary cut short");
    }
    let tensors = 0;
    while (at < r.size) {
      const [nDims, nameLength, type] = r.ints(at, 3) as [number, number, number];
      if (!inRange(nDims, 4) || !inRange(nameLength, 512)) throw new GgmlFileError(file, `impossible tensor header at byte ${at}`);
      const typeSize = TYPE_SIZES[type];
      if (!typeSize) throw new GgmlFileError(file, `unknown tensor type ${type}`);
      const dims = r.ints(at + 12, nDims);
      if (!dims.every((d) => inRange(d, 1 << 24))) throw new GgmlFileError(file, `impossible tensor shape at byte ${at}`);
      const values = dims.reduce((a, b) => a * b, 1);
      if (values % typeSize[1] !== 0) throw new GgmlFileError(file, `tensor size does not fit its type at byte ${at}`);
      at += 12 + 4 * nDims + nameLength + (values / typeSize[1]) * typeSize[0];
      if (at > r.size) throw new GgmlFileError(file, `cut short: a tensor needs ${at} bytes, the file has ${r.size}`);
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
