/**
 * @module ai/insights/sentiment-transformer
 * Sentiment from a local transformer text-classification model (@huggingface/transformers,
 * ONNX: the 8-bit `onnx/model_quantized.onnx` the manifest installs, or full-precision
 * `onnx/model.onnx` when that is there, see ../model-weights.ts), loaded from the models
 * directory only (`env.allowRemoteModels = false`). Label sets seen on the hub are mapped to
 * Earshot's three values and a −1..1 score: negative/neutral/positive (any case),
 * NEGATIVE/POSITIVE, LABEL_0..LABEL_2 (by position), and "1 star".."5 stars".
 *
 * The library is imported on first use, so the lexicon-only path never loads onnxruntime.
 * `env.localModelPath` is process-wide (per worker thread): the ASR loader must point it at the
 * same models directory.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { installedWeights } from "../model-weights.ts";
import { loadEmbeddedOrtLibrary } from "../../runtime/onnxruntime.ts";
import type { Sentiment, SentimentResult } from "./types.ts";

/** One label of a classifier's output. */
export interface LabelScore {
  label: string;
  score: number;
}

/** A loaded classifier: text in, every label's probability out. */
export type ClassifyFn = (text: string) => Promise<LabelScore[]>;

/** Half-width of the neutral band for models without a neutral label (2-class). */
export const TWO_CLASS_NEUTRAL_BAND = 0.2;

/**
 * Whether the model's files are present: `<modelsDir>/<modelId>/config.json` and
 * `onnx/model.onnx` or `onnx/model_quantized.onnx`.
 */
export function hasLocalModel(modelsDir: string, modelId: string): boolean {
  const dir = path.join(modelsDir, modelId);
  return existsSync(path.join(dir, "config.json")) && installedWeights(dir, "model") !== null;
}

/** Polarity of one label: −1, 0 or 1 (−1..1 for star ratings); null when unknown. */
export function labelPolarity(label: string, labelCount: number): number | null {
  const l = label.trim().toLowerCase();
  if (l.startsWith("neg")) return -1;
  if (l.startsWith("neu")) return 0;
  if (l.startsWith("pos")) return 1;
  const indexed = /^label_(\d+)$/.exec(l);
  if (indexed) {
    const i = Number(indexed[1]);
    if (labelCount === 2) return i === 0 ? -1 : i === 1 ? 1 : null;
    if (labelCount === 3) return i <= 2 ? i - 1 : null;
    return null;
  }
  const stars = /^(\d)\s*stars?$/.exec(l);
  if (stars) return (Number(stars[1]) - 3) / 2;
  return null;
}

/**
 * Maps a classifier's label probabilities to Earshot's sentiment.
 * @param scores every label with its probability (`top_k: null` output).
 * @returns the score as Σ p·polarity / Σ p over known labels (−1..1, three decimals) and the
 *   label of the most probable polarity bucket; for models without a neutral label, neutral
 *   when |score| < {@link TWO_CLASS_NEUTRAL_BAND}. Unknown labels only → neutral, 0.
 */
export function mapClassifierOutput(scores: LabelScore[]): SentimentResult {
  const buckets = { negative: 0, neutral: 0, positive: 0 };
  let weighted = 0;
  let total = 0;
  let hasNeutral = false;
  for (const { label, score } of scores) {
    const polarity = labelPolarity(label, scores.length);
    if (polarity === null) continue;
    weighted += score * polarity;
    total += score;
    if (polarity === 0) hasNeutral = true;
    buckets[polarity < 0 ? "negative" : polarity > 0 ? "positive" : "neutral"] += score;
  }
  if (total === 0) return { sentiment: "neutral", score: 0 };
  const value = Math.round(Math.max(-1, Math.min(1, weighted / total)) * 1000) / 1000;
  let sentiment: Sentiment;
  if (hasNeutral) {
    const entries = Object.entries(buckets) as [Sentiment, number][];
    sentiment = entries.reduce((best, e) => (e[1] > best[1] ? e : best))[0];
  } else {
    sentiment = value >= TWO_CLASS_NEUTRAL_BAND ? "positive" : value <= -TWO_CLASS_NEUTRAL_BAND ? "negative" : "neutral";
  }
  return { sentiment, score: value };
}

/**
 * Loads the classifier from `<modelsDir>/<modelId>`, in full precision when `onnx/model.onnx` is
 * there, else the 8-bit `onnx/model_quantized.onnx`.
 * @returns a function giving every label's probability for one text (truncated to the model's
 *   maximum length by the tokenizer).
 * @throws when the files are missing or onnxruntime cannot load them.
 */
export async function loadTransformerClassifier(modelsDir: string, modelId: string): Promise<ClassifyFn> {
  loadEmbeddedOrtLibrary(); // in the binary's main thread, before ONNX Runtime's addon links (runtime/preload.ts)
  const { env, pipeline } = await import("@huggingface/transformers");
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = modelsDir.endsWith(path.sep) ? modelsDir : modelsDir + path.sep;
  const dtype = installedWeights(path.join(modelsDir, modelId), "model") ?? "q8";
  const classifier = await pipeline("text-classification", modelId, { dtype });
  return async (text: string) => {
    const output = await classifier(text, { top_k: null });
    return (Array.isArray(output[0]) ? output[0] : output) as LabelScore[];
  };
}
