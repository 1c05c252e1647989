/**
 * @module ai/themes/sentence-embedder
 * The optional themes engine (DESIGN §12, issue 24): a sentence-embedding model installed with
 * `earshot models fetch` (`Xenova/all-MiniLM-L6-v2`, or the multilingual
 * `Xenova/paraphrase-multilingual-MiniLM-L12-v2`; docs/models.md), run with
 * @huggingface/transformers' `feature-extraction` pipeline, mean-pooled over the tokens and
 * L2-normalised. Loaded from the models directory only (`env.allowRemoteModels = false`), in full
 * precision when `onnx/model.onnx` is there, else the 8-bit `onnx/model_quantized.onnx`
 * (../model-weights.ts). `env.localModelPath` is per thread: in the worker the ASR and sentiment
 * loaders point it at the same models directory.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { installedWeights } from "../model-weights.ts";
import { loadEmbeddedOrtLibrary } from "../../runtime/onnxruntime.ts";
import type { BatchEmbedder } from "./embedder.ts";

/** Texts per model call: bounds the padded [batch, tokens, dims] tensor (a 512-token answer × 16 × 384 floats ≈ 12 MB). */
export const SENTENCE_BATCH = 16;

/**
 * Whether a sentence-embedding model is installed: `<modelsDir>/<modelId>/config.json`,
 * `tokenizer.json` and `onnx/model.onnx` or `onnx/model_quantized.onnx`.
 */
export function hasSentenceModel(modelsDir: string, modelId: string): boolean {
  const dir = path.join(modelsDir, modelId);
  return existsSync(path.join(dir, "config.json")) && existsSync(path.join(dir, "tokenizer.json")) && installedWeights(dir, "model") !== null;
}

/**
 * Loads the model at `<modelsDir>/<modelId>` as a {@link BatchEmbedder}. Its `id` is the model
 * id, so a theme model built with it is never fed vectors of another engine or model
 * (./incremental.ts `assignAnswer` compares ids); `dimensions` is the model's output width (384
 * for both MiniLM models), read from one embedding at load time.
 * @param modelsDir the models directory (EARSHOT_MODELS_DIR), absolute or relative to the cwd.
 * @param modelId a folder under it, e.g. "Xenova/all-MiniLM-L6-v2".
 * @returns the engine; `embedBatch(texts)` gives one unit-length Float32Array per text, in
 *   order (an empty or whitespace-only text gives the zero vector, as the default engine does).
 * @throws Error when the files are missing or ONNX Runtime cannot load or run them.
 */
export async function loadSentenceEmbedder(modelsDir: string, modelId: string): Promise<BatchEmbedder> {
  const root = path.resolve(modelsDir);
  if (!hasSentenceModel(root, modelId)) throw new Error(`sentence-embedding model ${modelId} is not installed in ${root}`);
  loadEmbeddedOrtLibrary(); // in the binary, before ONNX Runtime's addon links (runtime/onnxruntime.ts)
  const { env, pipeline } = await import("@huggingface/transformers");
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = root + path.sep;
  const dtype = installedWeights(path.join(root, modelId), "model") ?? "q8";
  const extract = await pipeline("feature-extraction", modelId, { dtype });

  const run = async (texts: string[]): Promise<Float32Array[]> => {
    const output = await extract(texts, { pooling: "mean", normalize: true });
    const [rows, dims] = output.dims as [number, number];
    const data = output.data as Float32Array;
    return Array.from({ length: rows }, (_, i) => {
      const v = data.slice(i * dims, (i + 1) * dims);
      // A zero pooled vector normalises to NaN: keep the interface's "zero when nothing known".
      return v.every(Number.isFinite) ? v : new Float32Array(dims);
    });
  };
  const dimensions = (await run(["dimensions"]))[0]!.length;

  return {
    id: modelId,
    dimensions,
    async embedBatch(texts: string[]): Promise<Float32Array[]> {
      const out: Float32Array[] = new Array(texts.length);
      const nonEmpty = texts.flatMap((t, i) => (t.trim() ? [i] : []));
      for (const [i, t] of texts.entries()) if (!t.trim()) out[i] = new Float32Array(dimensions);
      for (let s = 0; s < nonEmpty.length; s += SENTENCE_BATCH) {
        const chunk = nonEmpty.slice(s, s + SENTENCE_BATCH);
        const vectors = await run(chunk.map((i) => texts[i]!));
        chunk.forEach((i, j) => {
          out[i] = vectors[j]!;
        });
      }
      return out;
    },
  };
}
