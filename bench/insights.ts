/**
 * @module bench/insights
 * Accuracy and latency of the insights engine (src/ai/insights) on a hand-labelled set of
 * product-feedback answers (bench/data/feedback-labelled.jsonl): sentiment accuracy with a
 * 3×3 confusion matrix, precision/recall/F1 of `actionable`, and per-answer latency. Prints
 * figures; asserts nothing about time.
 *
 *   npx bun bench/insights.ts                                   # lexicon engine (VADER)
 *   npx bun bench/insights.ts --models-dir ../shared/models/fixture \
 *       --sentiment-model tiny-sentiment-3class                 # transformer engine
 *   … --data other.jsonl --show-errors
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { createInsightsEngine, type Sentiment } from "../src/ai/insights/index.ts";
import { labelFromScore, vaderCompound } from "../src/ai/insights/sentiment-lexicon.ts";

interface Example {
  text: string;
  sentiment: Sentiment;
  actionable: boolean;
}

const LABELS: Sentiment[] = ["negative", "neutral", "positive"];

const { values: flags } = parseArgs({
  options: {
    "models-dir": { type: "string" },
    "sentiment-model": { type: "string" },
    data: { type: "string", default: path.join(import.meta.dir, "data", "feedback-labelled.jsonl") },
    "show-errors": { type: "boolean", default: false },
  },
});

function loadExamples(file: string): Example[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => {
      const row = JSON.parse(line) as Example;
      if (!LABELS.includes(row.sentiment) || typeof row.actionable !== "boolean") {
        throw new Error(`${file}:${i + 1}: bad labels`);
      }
      return row;
    });
}

function percentile(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? NaN;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

const examples = loadExamples(flags.data!);
// Without --sentiment-model no model folder matches, so the engine uses VADER.
const engine = createInsightsEngine({
  modelsDir: path.resolve(flags["models-dir"] ?? "models"),
  sentimentModel: flags["sentiment-model"] ?? "(lexicon only)",
});

const loadStart = performance.now();
await engine.warmUp();
const loadMs = performance.now() - loadStart;

const confusion = LABELS.map(() => LABELS.map(() => 0));
const baselineConfusion = LABELS.map(() => LABELS.map(() => 0));
let tp = 0, fp = 0, fn = 0, tn = 0;
const latencies: number[] = [];
const engines = new Set<string>();
const errors: string[] = [];

for (const ex of examples) {
  const start = performance.now();
  const result = await engine.analyse(ex.text);
  latencies.push(performance.now() - start);
  engines.add(result.engine.sentiment);
  const predicted = result.ai_insights.sentiment;
  confusion[LABELS.indexOf(ex.sentiment)]![LABELS.indexOf(predicted)]! += 1;
  baselineConfusion[LABELS.indexOf(ex.sentiment)]![LABELS.indexOf(labelFromScore(vaderCompound(ex.text)))]! += 1;
  const actionable = result.ai_insights.actionable;
  if (actionable && ex.actionable) tp++;
  else if (actionable && !ex.actionable) fp++;
  else if (!actionable && ex.actionable) fn++;
  else tn++;
  if (predicted !== ex.sentiment || actionable !== ex.actionable) {
    errors.push(`  [${ex.sentiment}/${ex.actionable ? "A" : "-"} → ${predicted}/${actionable ? "A" : "-"}] ${ex.text}`);
  }
}

const correct = (m: number[][]) => m.reduce((sum, row, i) => sum + (row[i] ?? 0), 0);
const precision = tp / (tp + fp || 1);
const recall = tp / (tp + fn || 1);
const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
const sorted = [...latencies].sort((a, b) => a - b);
const counts = LABELS.map((l) => `${l} ${examples.filter((e) => e.sentiment === l).length}`).join(", ");

console.log(`Insights benchmark — ${examples.length} answers (${counts}; actionable ${tp + fn})`);
console.log(`sentiment engine: ${[...engines].join(", ")}   text engine: wink-nlp:wink-eng-lite-web-model`);
console.log(`bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, ${new Date().toISOString().slice(0, 10)}`);
console.log("");
console.log(`sentiment accuracy: ${pct(correct(confusion) / examples.length)} (${correct(confusion)}/${examples.length})`);
console.log("confusion (rows = label, columns = predicted):");
console.log(`  ${"".padEnd(10)}${LABELS.map((l) => l.padStart(10)).join("")}`);
confusion.forEach((row, i) => console.log(`  ${LABELS[i]!.padEnd(10)}${row.map((n) => String(n).padStart(10)).join("")}`));
if ([...engines].every((e) => e.startsWith("lexicon"))) {
  console.log(`baseline, plain VADER compound ±0.05 without the problem-report rule: ${pct(correct(baselineConfusion) / examples.length)}`);
}
console.log("");
console.log(`actionable: precision ${pct(precision)}, recall ${pct(recall)}, F1 ${pct(f1)} (tp ${tp}, fp ${fp}, fn ${fn}, tn ${tn})`);
console.log("");
console.log(`latency per answer: p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms`);
console.log(`engine load (warmUp): ${loadMs.toFixed(0)} ms`);
if (flags["show-errors"]) {
  console.log(`\n${errors.length} answers with a wrong sentiment or actionable:`);
  for (const line of errors) console.log(line);
}
