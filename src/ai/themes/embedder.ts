/**
 * @module ai/themes/embedder
 * Answer embedders for themes (DESIGN §12, issue 24): text → unit-length Float32Array.
 *
 * Two engines share the {@link Embedder} interface:
 * - `sif-wink-100d` (default, {@link createSifEmbedder}): ships inside the binary, needs nothing
 *   fetched. Smooth-inverse-frequency weighted mean (Arora et al. 2017) of the pretrained word
 *   vectors of ./vectors.ts; typos reach their word by character trigrams; fillers dropped
 *   (./tokens.ts). The common-component removal of SIF depends on the whole question's answers,
 *   so it is done by the theme build (./build.ts), not here. About 0.03 ms per answer.
 * - the optional sentence-embedding model (./sentence-embedder.ts): `Xenova/all-MiniLM-L6-v2` (or
 *   the multilingual `Xenova/paraphrase-multilingual-MiniLM-L12-v2`) installed by
 *   `earshot models fetch`, run with @huggingface/transformers' `feature-extraction` pipeline
 *   (`pooling: "mean", normalize: true`). Its `id` is the model id, `dimensions` 384. It embeds
 *   asynchronously, so it implements {@link BatchEmbedder} only; the caller stores each answer's
 *   vector and calls `buildThemes` with `{id, dimensions}` (./build.ts `EngineInfo`; quotes then
 *   rank whole answers). ./select.ts picks the engine. Theme models built with one engine are
 *   never mixed with vectors of the other: the id is stored with the model and `assignAnswer`
 *   checks it.
 */
import { frequencyOf, lookupWord, wordVectors } from "./vectors.ts";
import { FILLERS, tokenize } from "./tokens.ts";
import { normalise } from "./linalg.ts";

/** An answer embedder. `embed` never throws; text with no known word gives the zero vector. */
export interface Embedder {
  /** Engine id, stored with a theme model ("sif-wink-100d", or a model id). */
  readonly id: string;
  readonly dimensions: number;
  /** Unit-length vector of `text` (all zeros when no word of it is known). */
  embed(text: string): Float32Array;
}

/**
 * The interface both engines implement: texts → one unit-length vector each, in order. The SIF
 * engine answers at once; the sentence model runs ONNX Runtime. Rejects only when the model
 * fails to run (the SIF engine never rejects).
 */
export interface BatchEmbedder {
  /** Engine id, stored with a theme model: "sif-wink-100d", or the sentence model's id. */
  readonly id: string;
  readonly dimensions: number;
  embedBatch(texts: string[]): Promise<Float32Array[]>;
}

/** Options of the SIF embedder (defaults: docs/decisions/themes.md). */
export interface SifOptions {
  /** SIF smoothing `a` in a / (a + p(w)); smaller down-weights frequent words harder. */
  a?: number;
  /** Look unknown words up by character trigrams (typos). */
  typos?: boolean;
}

export const DEFAULT_SIF_A = 1e-3;

/** The default engine's id. */
export const SIF_ENGINE_ID = "sif-wink-100d";

/**
 * The default embedder: SIF-weighted pretrained word vectors (see the module comment).
 * @param options {@link SifOptions}
 */
export function createSifEmbedder(options: SifOptions = {}): Embedder & BatchEmbedder {
  const a = options.a ?? DEFAULT_SIF_A;
  const typos = options.typos ?? true;
  const t = wordVectors();
  const dims = t.dimensions;
  const weights = new Float32Array(t.words.length);
  for (let i = 0; i < weights.length; i++) weights[i] = a / (a + frequencyOf(t, i));
  const embedder = {
    id: SIF_ENGINE_ID,
    dimensions: dims,
    async embedBatch(texts: string[]): Promise<Float32Array[]> {
      return texts.map((text) => embedder.embed(text));
    },
    embed(text: string): Float32Array {
      const v = new Float32Array(dims);
      const add = (row: number) => {
        if (row < 0) return;
        const wt = weights[row]! / 127;
        const base = row * dims;
        for (let d = 0; d < dims; d++) v[d]! += wt * t.vectors[base + d]!;
      };
      for (const w of tokenize(text)) {
        const row = typos ? lookupWord(t, w) : (t.index.get(w) ?? -1);
        if (row >= 0) add(row);
        // A compound the table does not know ("self-checkout") counts as its parts.
        else if (w.includes("-"))
          for (const part of w.split("-")) if (part.length > 1 && !FILLERS.has(part)) add(typos ? lookupWord(t, part) : (t.index.get(part) ?? -1));
      }
      return normalise(v);
    },
  };
  return embedder;
}
