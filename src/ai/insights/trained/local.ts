/**
 * @module ai/insights/trained/local
 * Retraining on the box (`earshot insights train`, docs/insights.md "Corrections and local
 * training"): the project corpus plus the operators' corrections (each correction counted
 * {@link CORRECTION_WEIGHT} times, so a workspace's own vocabulary weighs in), checked on the
 * held-out set against the model in use, and installed only when it does not score worse.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { heldoutSet, trainingCorpus } from "./corpus.ts";
import { installedModelPath } from "./loader.ts";
import { scorePredictions, type QualityReport } from "./metrics.ts";
import { predict, type LinearModel } from "./model.ts";
import { DEFAULT_TRAIN_OPTIONS, trainModel, type LabelledAnswer } from "./train.ts";

/** How many times each correction is repeated in the training data. */
export const CORRECTION_WEIGHT = 3;

/** Scores of a model on a labelled set. */
export function scoreModel(model: LinearModel, answers: LabelledAnswer[]): QualityReport {
  return scorePredictions(
    answers,
    answers.map((a) => predict(model, a.text)),
  );
}

/**
 * One number to compare models on the held-out set: the mean of sentiment accuracy and
 * actionable F1 (both 0..1).
 */
export function heldoutScore(r: QualityReport): number {
  return (r.accuracy + r.actionable.f1) / 2;
}

/** Outcome of {@link retrain}. */
export interface RetrainOutcome {
  model: LinearModel;
  current: LinearModel;
  heldout: { current: QualityReport; candidate: QualityReport };
  corrections: { count: number; current: QualityReport | null; candidate: QualityReport | null };
  /** True when the candidate does not score worse than the current model on the held-out set. */
  isAcceptable: boolean;
}

/**
 * Trains a candidate model from the corpus plus corrections and compares it with `current`.
 * Deterministic for the same corrections (the id carries `now`).
 * @param corrections labelled answers from `insight_corrections` (latest per answer).
 * @param now time used in the model id, e.g. "linear-v2-local-20261125T0930".
 */
export function retrain(current: LinearModel, corrections: LabelledAnswer[], now = new Date()): RetrainOutcome {
  const stamp = now.toISOString().replace(/[-:]/g, "").slice(0, 13);
  const extra = corrections.flatMap((c) => Array.from({ length: CORRECTION_WEIGHT }, () => c));
  const model = trainModel(
    `linear-v2-local-${stamp}`,
    [...trainingCorpus(), ...extra],
    {
      corpus: "corpus/insights/train.jsonl (embedded)",
      corrections: corrections.length,
      correction_weight: CORRECTION_WEIGHT,
      trained_at: now.toISOString(),
    },
    DEFAULT_TRAIN_OPTIONS,
  );
  const heldout = heldoutSet();
  const currentHeldout = scoreModel(current, heldout);
  const candidateHeldout = scoreModel(model, heldout);
  return {
    model,
    current,
    heldout: { current: currentHeldout, candidate: candidateHeldout },
    corrections: {
      count: corrections.length,
      current: corrections.length ? scoreModel(current, corrections) : null,
      candidate: corrections.length ? scoreModel(model, corrections) : null,
    },
    isAcceptable: heldoutScore(candidateHeldout) >= heldoutScore(currentHeldout),
  };
}

/**
 * Writes a model to `<modelsDir>/earshot-insights/model.json` (via a temporary file and a rename,
 * so the worker never reads half a file).
 * @returns the file's path.
 */
export function installModel(modelsDir: string, model: LinearModel): string {
  const file = installedModelPath(modelsDir);
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(model.document) + "\n");
  renameSync(tmp, file);
  return file;
}
