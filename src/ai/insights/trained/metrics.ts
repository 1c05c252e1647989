/**
 * @module ai/insights/trained/metrics
 * Quality figures of an insights engine on labelled answers: sentiment accuracy, macro-F1 and a
 * 3×3 confusion matrix; actionable precision, recall and F1. Also reads labelled JSONL files
 * (`{"text","sentiment","actionable",…}` a line, docs/insights.md).
 */
import { readFileSync } from "node:fs";
import type { Sentiment } from "../types.ts";
import { SENTIMENT_LABELS } from "./model.ts";
import type { LabelledAnswer } from "./train.ts";

/** A prediction to score. */
export interface Predicted {
  sentiment: Sentiment;
  actionable: boolean;
}

/** Scores of one engine on one labelled set. */
export interface QualityReport {
  answers: number;
  accuracy: number;
  macroF1: number;
  /** rows = label, columns = predicted, order negative, neutral, positive. */
  confusion: number[][];
  perClassF1: Record<Sentiment, number>;
  actionable: { precision: number; recall: number; f1: number; tp: number; fp: number; fn: number; tn: number };
}

const f1 = (p: number, r: number) => (p + r === 0 ? 0 : (2 * p * r) / (p + r));

/**
 * Scores predictions against labels (same order, same length).
 * @throws Error when the lengths differ.
 */
export function scorePredictions(labels: Predicted[], predicted: Predicted[]): QualityReport {
  if (labels.length !== predicted.length) throw new Error("labels and predictions differ in length");
  const confusion = SENTIMENT_LABELS.map(() => SENTIMENT_LABELS.map(() => 0));
  let tp = 0,
    fp = 0,
    fn = 0,
    tn = 0;
  labels.forEach((label, i) => {
    const p = predicted[i]!;
    confusion[SENTIMENT_LABELS.indexOf(label.sentiment)]![SENTIMENT_LABELS.indexOf(p.sentiment)]! += 1;
    if (p.actionable && label.actionable) tp++;
    else if (p.actionable) fp++;
    else if (label.actionable) fn++;
    else tn++;
  });
  const correct = confusion.reduce((s, row, i) => s + row[i]!, 0);
  const perClassF1 = {} as Record<Sentiment, number>;
  SENTIMENT_LABELS.forEach((l, k) => {
    const rowSum = confusion[k]!.reduce((a, b) => a + b, 0);
    const colSum = confusion.reduce((a, row) => a + row[k]!, 0);
    perClassF1[l] = f1(colSum ? confusion[k]![k]! / colSum : 0, rowSum ? confusion[k]![k]! / rowSum : 0);
  });
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  return {
    answers: labels.length,
    accuracy: labels.length ? correct / labels.length : 0,
    macroF1: (perClassF1.negative + perClassF1.neutral + perClassF1.positive) / 3,
    confusion,
    perClassF1,
    actionable: { precision, recall, f1: f1(precision, recall), tp, fp, fn, tn },
  };
}

/**
 * Reads a labelled JSONL file.
 * @returns the answers in file order.
 * @throws Error naming the line when a line is not JSON or its labels are invalid.
 */
export function readLabelledFile(file: string): LabelledAnswer[] {
  return parseLabelledJsonl(readFileSync(file, "utf8"), file);
}

/** Parses labelled JSONL text (see {@link readLabelledFile}). */
export function parseLabelledJsonl(text: string, name = "input"): LabelledAnswer[] {
  const out: LabelledAnswer[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let row: Partial<LabelledAnswer>;
    try {
      row = JSON.parse(line) as Partial<LabelledAnswer>;
    } catch {
      throw new Error(`${name}:${i + 1}: not JSON`);
    }
    if (typeof row.text !== "string" || !SENTIMENT_LABELS.includes(row.sentiment as Sentiment) || typeof row.actionable !== "boolean") {
      throw new Error(`${name}:${i + 1}: needs text, sentiment (negative|neutral|positive) and actionable (boolean)`);
    }
    out.push(row as LabelledAnswer);
  });
  return out;
}

/** Formats a report as a few lines of text. */
export function formatReport(name: string, r: QualityReport): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const a = r.actionable;
  const lines = [
    `${name}: ${r.answers} answers — sentiment accuracy ${pct(r.accuracy)}, macro-F1 ${r.macroF1.toFixed(3)}; actionable P ${pct(a.precision)} R ${pct(a.recall)} F1 ${a.f1.toFixed(3)}`,
    `  confusion (rows label, cols predicted: neg neu pos): ${r.confusion.map((row) => row.join(" ")).join(" | ")}`,
  ];
  return lines.join("\n");
}
