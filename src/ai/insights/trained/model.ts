/**
 * @module ai/insights/trained/model
 * The trained insights model: one linear layer over ./features.ts with four outputs — a softmax
 * over negative/neutral/positive and a sigmoid for actionable — stored as 16-bit quantised
 * weights in a small JSON document (format `earshot-insights-linear/1`). The embedded model is
 * `./model.json` (built by scripts/train-insights.ts); an operator's retrained model has the
 * same shape (docs/insights.md, "Corrections and local training").
 */
import type { Sentiment } from "../types.ts";
import { DENSE_FEATURES, extractFeatures, FEATURE_COUNT, HASH_BUCKETS, type SparseVector } from "./features.ts";

/** Value of `format` in a model document. */
export const MODEL_FORMAT = "earshot-insights-linear/1";

/** Sentiment labels in output order. */
export const SENTIMENT_LABELS: readonly Sentiment[] = ["negative", "neutral", "positive"];

/** Outputs per feature: three sentiment logits and the actionable logit. */
export const OUTPUTS = 4;

/** The JSON document of a model. */
export interface ModelDocument {
  format: typeof MODEL_FORMAT;
  /** e.g. "linear-v2" (embedded) or "linear-v2-local-20261125T0930" (retrained on the box). */
  id: string;
  buckets: number;
  dense: string[];
  labels: string[];
  /** Actionable when its probability is at least this. */
  actionable_threshold: number;
  /** Weight = int16 × scale. */
  scale: number;
  /** base64 of little-endian int16, FEATURE_COUNT × 4 (feature-major). */
  weights: string;
  /** Where the model came from: corpus size, corrections used, hyper-parameters. */
  trained_on: Record<string, unknown>;
}

/** A model ready to predict. */
export interface LinearModel {
  id: string;
  weights: Float32Array;
  actionableThreshold: number;
  document: ModelDocument;
}

/** One prediction. */
export interface Prediction {
  sentiment: Sentiment;
  /** P(positive) − P(negative), −1..1, three decimals. */
  score: number;
  /** [negative, neutral, positive] probabilities. */
  probabilities: [number, number, number];
  actionable: boolean;
  /** P(actionable). */
  actionableProbability: number;
}

/**
 * Quantises float weights into a model document.
 * @param weights FEATURE_COUNT × 4 floats.
 */
export function toDocument(id: string, weights: Float32Array, actionableThreshold: number, trainedOn: Record<string, unknown>): ModelDocument {
  let maxAbs = 0;
  for (const w of weights) maxAbs = Math.max(maxAbs, Math.abs(w));
  const scale = maxAbs > 0 ? maxAbs / 32767 : 1;
  const ints = new Int16Array(weights.length);
  for (let i = 0; i < weights.length; i++) ints[i] = Math.round(weights[i]! / scale);
  return {
    format: MODEL_FORMAT,
    id,
    buckets: HASH_BUCKETS,
    dense: [...DENSE_FEATURES],
    labels: [...SENTIMENT_LABELS],
    actionable_threshold: actionableThreshold,
    scale,
    weights: Buffer.from(ints.buffer).toString("base64"),
    trained_on: trainedOn,
  };
}

/**
 * Loads a model document.
 * @throws Error when the document's format, bucket count, dense features or size do not match
 *   this code (a model from another version).
 */
export function fromDocument(doc: ModelDocument): LinearModel {
  if (doc.format !== MODEL_FORMAT) throw new Error(`unknown model format ${String(doc.format)}`);
  if (doc.buckets !== HASH_BUCKETS || doc.dense.join(",") !== DENSE_FEATURES.join(",")) {
    throw new Error(`model ${doc.id} was built for other features`);
  }
  const bytes = Buffer.from(doc.weights, "base64");
  const ints = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  if (ints.length !== FEATURE_COUNT * OUTPUTS) throw new Error(`model ${doc.id} has ${ints.length} weights`);
  const weights = new Float32Array(ints.length);
  for (let i = 0; i < ints.length; i++) weights[i] = ints[i]! * doc.scale;
  return { id: doc.id, weights, actionableThreshold: doc.actionable_threshold, document: doc };
}

/** The four raw outputs (logits) for a feature vector. */
export function logits(weights: Float32Array, x: SparseVector): [number, number, number, number] {
  let a = 0,
    b = 0,
    c = 0,
    d = 0;
  for (let j = 0; j < x.indices.length; j++) {
    const base = x.indices[j]! * OUTPUTS;
    const v = x.values[j]!;
    a += weights[base]! * v;
    b += weights[base + 1]! * v;
    c += weights[base + 2]! * v;
    d += weights[base + 3]! * v;
  }
  return [a, b, c, d];
}

/** Softmax of three logits. */
export function softmax3(z: readonly number[]): [number, number, number] {
  const m = Math.max(z[0]!, z[1]!, z[2]!);
  const e = [Math.exp(z[0]! - m), Math.exp(z[1]! - m), Math.exp(z[2]! - m)];
  const s = e[0]! + e[1]! + e[2]!;
  return [e[0]! / s, e[1]! / s, e[2]! / s];
}

/** Logistic function. */
export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/**
 * Answers longer than this many words are judged sentence by sentence: the model was trained on
 * short answers, and a long bag of words leans negative (more complaint words, a lower
 * "most negative sentence"). Sentiment is then the word-weighted mean of the sentences'
 * probabilities; actionable holds when any sentence is.
 */
export const LONG_ANSWER_WORDS = 60;

/** Probabilities of one text as a single answer. */
function classifyOnce(model: LinearModel, text: string): { p: [number, number, number]; q: number } {
  const z = logits(model.weights, extractFeatures(text));
  return { p: softmax3(z), q: sigmoid(z[3]) };
}

/** Word-weighted sentence average for long answers (see {@link LONG_ANSWER_WORDS}). */
function classifyLong(model: LinearModel, text: string): { p: [number, number, number]; q: number } | null {
  const sentences = text.split(/(?<=[.!?])\s+/).filter((s) => /[a-z]/i.test(s));
  if (sentences.length < 2) return null;
  const p: [number, number, number] = [0, 0, 0];
  let total = 0;
  let q = 0;
  for (const sentence of sentences) {
    const words = sentence.split(/\s+/).length;
    const one = classifyOnce(model, sentence);
    p[0] += one.p[0] * words;
    p[1] += one.p[1] * words;
    p[2] += one.p[2] * words;
    total += words;
    q = Math.max(q, one.q);
  }
  return { p: [p[0] / total, p[1] / total, p[2] / total], q };
}

/**
 * Predicts sentiment and actionable for one answer. About 0.1 ms for a short answer.
 * @param text the answer; empty text is neutral and not actionable.
 */
export function predict(model: LinearModel, text: string): Prediction {
  if (text.trim() === "") {
    return { sentiment: "neutral", score: 0, probabilities: [0, 1, 0], actionable: false, actionableProbability: 0 };
  }
  const isLong = text.trim().split(/\s+/).length > LONG_ANSWER_WORDS;
  const { p, q } = (isLong ? classifyLong(model, text) : null) ?? classifyOnce(model, text);
  const best = p[0] >= p[1] && p[0] >= p[2] ? 0 : p[1] >= p[2] ? 1 : 2;
  return {
    sentiment: SENTIMENT_LABELS[best]!,
    score: Math.round((p[2] - p[0]) * 1000) / 1000 || 0,
    probabilities: p,
    actionable: q >= model.actionableThreshold,
    actionableProbability: q,
  };
}
