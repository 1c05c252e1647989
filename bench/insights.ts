/**
 * @module bench/insights
 * Accuracy and latency of the insights engines side by side — lexicon (VADER + hand-written
 * rules), trained (the linear model embedded in the binary, src/ai/insights/trained) and the
 * fixture transformer (sentiment from the transformer, actionable from the trained model) — on
 * the held-out set (corpus/insights/heldout.jsonl, never used for training or tuning) and the
 * older labelled set (bench/data/feedback-labelled.jsonl): sentiment accuracy, macro-F1 and
 * confusion, actionable precision/recall/F1, per-answer latency; plus the trained model's
 * leave-one-domain-out accuracy on the training corpus. Prints figures; asserts nothing about time.
 *
 *   npx bun bench/insights.ts                      # everything (about a minute)
 *   npx bun bench/insights.ts --no-lodo            # skip leave-one-domain-out
 *   npx bun bench/insights.ts --data FILE.jsonl    # another labelled set instead of the two above
 *   … --show-errors trained                        # list the trained engine's misses on the held-out set
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { createInsightsEngine, type InsightsEngine } from "../src/ai/insights/index.ts";
import { formatReport, type Predicted, readLabelledFile, scorePredictions } from "../src/ai/insights/trained/metrics.ts";
import { embeddedModel } from "../src/ai/insights/trained/loader.ts";
import { predict } from "../src/ai/insights/trained/model.ts";
import { trainModel, type LabelledAnswer } from "../src/ai/insights/trained/train.ts";

const ROOT = path.join(import.meta.dir, "..");
const FIXTURE_MODELS = path.resolve(ROOT, "..", "shared", "models", "fixture");

const { values: flags } = parseArgs({
  options: {
    data: { type: "string", multiple: true },
    "no-lodo": { type: "boolean", default: false },
    "show-errors": { type: "string" },
  },
});

const sets: [string, string][] = flags.data?.length
  ? flags.data.map((f) => [path.basename(f), f])
  : [
      ["held-out (corpus/insights/heldout.jsonl)", path.join(ROOT, "corpus", "insights", "heldout.jsonl")],
      ["old labelled set (bench/data/feedback-labelled.jsonl)", path.join(import.meta.dir, "data", "feedback-labelled.jsonl")],
    ];

const engines: [string, InsightsEngine][] = [
  ["lexicon (VADER + rules)", createInsightsEngine({ modelsDir: path.join(ROOT, "models"), sentimentModel: "(none)", fallback: "lexicon" })],
  ["trained (embedded linear-v1)", createInsightsEngine({ modelsDir: path.join(ROOT, ".bench-no-models"), sentimentModel: "(none)" })],
  ["fixture transformer (tiny-sentiment-3class)", createInsightsEngine({ modelsDir: FIXTURE_MODELS, sentimentModel: "tiny-sentiment-3class" })],
];

const percentile = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? NaN;

console.log(`Insights benchmark — bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, ${new Date().toISOString().slice(0, 10)}`);
for (const [setName, file] of sets) {
  const examples = readLabelledFile(file);
  console.log(`\n## ${setName}: ${examples.length} answers`);
  for (const [engineName, engine] of engines) {
    await engine.warmUp();
    const predicted: Predicted[] = [];
    const latencies: number[] = [];
    const ids = new Set<string>();
    for (const ex of examples) {
      const start = performance.now();
      const r = await engine.analyse(ex.text);
      latencies.push(performance.now() - start);
      ids.add(r.engine.sentiment);
      predicted.push({ sentiment: r.ai_insights.sentiment, actionable: r.ai_insights.actionable });
    }
    const report = scorePredictions(examples, predicted);
    const sorted = latencies.sort((a, b) => a - b);
    console.log(formatReport(`${engineName} [${[...ids].join(", ")}]`, report));
    console.log(`  whole analysis per answer: p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms`);
    if (flags["show-errors"] && engineName.startsWith(flags["show-errors"]) && setName.startsWith("held-out")) {
      examples.forEach((ex, i) => {
        const p = predicted[i]!;
        if (p.sentiment !== ex.sentiment || p.actionable !== ex.actionable) {
          console.log(`    [${ex.sentiment}/${ex.actionable ? "A" : "-"} → ${p.sentiment}/${p.actionable ? "A" : "-"}] ${ex.text}`);
        }
      });
    }
  }
}

// The trained model alone (no wink-nlp parse): the cost the worker pays for sentiment + actionable.
const model = embeddedModel();
const heldout = readLabelledFile(path.join(ROOT, "corpus", "insights", "heldout.jsonl"));
const start = performance.now();
for (let round = 0; round < 5; round++) for (const ex of heldout) predict(model, ex.text);
console.log(`\ntrained model alone: ${((performance.now() - start) / (5 * heldout.length)).toFixed(3)} ms per answer (mean over ${5 * heldout.length})`);

if (!flags["no-lodo"] && !flags.data?.length) {
  const corpus: LabelledAnswer[] = readLabelledFile(path.join(ROOT, "corpus", "insights", "train.jsonl"));
  const domains = [...new Set(corpus.map((e) => e.domain ?? "?"))];
  let correct = 0;
  const parts: string[] = [];
  for (const d of domains) {
    const test = corpus.filter((e) => e.domain === d);
    const m = trainModel("lodo", corpus.filter((e) => e.domain !== d));
    const r = scorePredictions(test, test.map((e) => predict(m, e.text)));
    correct += r.accuracy * r.answers;
    parts.push(`${d} ${(100 * r.accuracy).toFixed(1)}%`);
  }
  console.log(`\ntrained, leave-one-domain-out on the training corpus: ${((100 * correct) / corpus.length).toFixed(1)}% (${parts.join(", ")})`);
}
