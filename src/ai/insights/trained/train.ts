/**
 * @module ai/insights/trained/train
 * Trains the linear insights model (./model.ts) with AdaGrad stochastic gradient descent on
 * softmax cross-entropy (sentiment) plus logistic loss (actionable), L2-regularised on the
 * features each example touches. Fully deterministic: examples are shuffled by a seeded
 * mulberry32 generator, so the same examples and options give bit-identical weights.
 * A few seconds for 3,000 answers on one core.
 */
import { extractFeatures, FEATURE_COUNT, type SparseVector } from "./features.ts";
import { logits, type LinearModel, OUTPUTS, SENTIMENT_LABELS, sigmoid, softmax3, fromDocument, toDocument } from "./model.ts";
import type { Sentiment } from "../types.ts";

/** A labelled answer. */
export interface LabelledAnswer {
  text: string;
  sentiment: Sentiment;
  actionable: boolean;
  /** Present in the project corpus; corrections have none. */
  domain?: string;
  /** Corpus style ("spoken", "terse", …); corrections have none. */
  style?: string;
  id?: string;
}

/** Training options; the defaults are the ones the embedded model was trained with. */
export interface TrainOptions {
  epochs: number;
  learningRate: number;
  l2: number;
  seed: number;
  actionableThreshold: number;
}

/** Chosen by 5-fold cross-validation on the training corpus (scripts/train-insights.ts --cv). */
export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  epochs: 12,
  learningRate: 0.2,
  l2: 1e-4,
  seed: 16,
  actionableThreshold: 0.5,
};

/** mulberry32: a small seeded PRNG returning 0..1. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Trains float weights.
 * @param examples labelled answers (at least one).
 * @returns FEATURE_COUNT × 4 weights (feature-major: negative, neutral, positive, actionable).
 */
export function trainWeights(examples: LabelledAnswer[], opts: TrainOptions = DEFAULT_TRAIN_OPTIONS): Float32Array {
  const features: SparseVector[] = examples.map((e) => extractFeatures(e.text));
  const targets = examples.map((e) => SENTIMENT_LABELS.indexOf(e.sentiment));
  const weights = new Float32Array(FEATURE_COUNT * OUTPUTS);
  const accum = new Float32Array(FEATURE_COUNT * OUTPUTS);
  const order = examples.map((_, i) => i);
  const random = mulberry32(opts.seed);
  const grad = [0, 0, 0, 0];
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const n of order) {
      const x = features[n]!;
      const z = logits(weights, x);
      const p = softmax3(z);
      for (let k = 0; k < 3; k++) grad[k] = p[k]! - (targets[n] === k ? 1 : 0);
      grad[3] = sigmoid(z[3]) - (examples[n]!.actionable ? 1 : 0);
      for (let j = 0; j < x.indices.length; j++) {
        const base = x.indices[j]! * OUTPUTS;
        const v = x.values[j]!;
        for (let k = 0; k < OUTPUTS; k++) {
          const w = weights[base + k]!;
          const g = grad[k]! * v + opts.l2 * w;
          const acc = accum[base + k]! + g * g;
          accum[base + k] = acc;
          weights[base + k] = w - (opts.learningRate * g) / (Math.sqrt(acc) + 1e-8);
        }
      }
    }
  }
  return weights;
}

/**
 * Trains a ready-to-use model (quantised exactly as it will be stored).
 * @param id model id, e.g. "linear-v2".
 * @param trainedOn provenance written into the document.
 */
export function trainModel(
  id: string,
  examples: LabelledAnswer[],
  trainedOn: Record<string, unknown> = {},
  opts: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): LinearModel {
  const weights = trainWeights(examples, opts);
  const doc = toDocument(id, weights, opts.actionableThreshold, {
    answers: examples.length,
    epochs: opts.epochs,
    learning_rate: opts.learningRate,
    l2: opts.l2,
    seed: opts.seed,
    ...trainedOn,
  });
  return fromDocument(doc);
}
