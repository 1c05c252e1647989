/**
 * @module bench/insights
 * Accuracy and latency of the insights engines side by side — lexicon (VADER + hand-written
 * rules), trained (the linear model embedded in the binary, src/ai/insights/trained) and the
 * fixture transformer (sentiment from the transformer, actionable from the trained model) — on
 * the held-out sets (corpus/insights/heldout.jsonl and heldout-voices.jsonl, never used for
 * training or tuning) and the
 * older labelled set (bench/data/feedback-labelled.jsonl): sentiment accuracy, macro-F1 and
 * confusion, actionable precision/recall/F1, per-answer latency and CPU time; plus the trained model's
 * leave-one-domain-out accuracy on the training corpus; and, on the long spoken answers
 * (corpus/insights/long/*.txt, 2-minute transcripts with hand-marked topics), topic precision and
 * recall, summary sentence count, length and fillers, and sentiment. Prints figures; asserts
 * nothing about time.
 *
 *   npx bun bench/insights.ts                      # everything (about a minute)
 *   npx bun bench/insights.ts --no-lodo            # skip leave-one-domain-out
 *   npx bun bench/insights.ts --data FILE.jsonl    # another labelled set instead of the two above
 *   … --show-errors trained                        # list the trained engine's misses on the held-out set
 *   npx bun bench/insights.ts --cpu-only           # only CPU per analysed answer, the trained engine alone in the process
 */
import { readdirSync, readFileSync } from "node:fs";
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
    "long-examples": { type: "string", default: "" },
    "show-errors": { type: "string" },
    "cpu-only": { type: "boolean", default: false },
  },
});

const sets: [string, string][] = flags.data?.length
  ? flags.data.map((f) => [path.basename(f), f])
  : [
      ["held-out (corpus/insights/heldout.jsonl)", path.join(ROOT, "corpus", "insights", "heldout.jsonl")],
      ["held-out, other voices (corpus/insights/heldout-voices.jsonl)", path.join(ROOT, "corpus", "insights", "heldout-voices.jsonl")],
      ["old labelled set (bench/data/feedback-labelled.jsonl)", path.join(import.meta.dir, "data", "feedback-labelled.jsonl")],
    ];

const engines: [string, InsightsEngine][] = [
  ["lexicon (VADER + rules)", createInsightsEngine({ modelsDir: path.join(ROOT, "models"), sentimentModel: "(none)", fallback: "lexicon" })],
  ["trained (embedded linear-v2)", createInsightsEngine({ modelsDir: path.join(ROOT, ".bench-no-models"), sentimentModel: "(none)" })],
  ["fixture transformer (tiny-sentiment-3class)", createInsightsEngine({ modelsDir: FIXTURE_MODELS, sentimentModel: "tiny-sentiment-3class" })],
];

const percentile = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? NaN;

console.log(`Insights benchmark — bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, ${new Date().toISOString().slice(0, 10)}`);

/**
 * CPU per analysed answer, the cost the intake pays (issue 24: "must not cost more per answer
 * than today's"): the trained engine's whole analyse() after warm-up, three rounds of the
 * held-out set.
 */
async function engineCpu(engine: InsightsEngine): Promise<void> {
  await engine.warmUp();
  const texts = readLabelledFile(path.join(ROOT, "corpus", "insights", "heldout.jsonl")).map((e) => e.text);
  for (const t of texts.slice(0, 50)) await engine.analyse(t);
  const rounds = 3;
  const cpuStart = process.cpuUsage();
  const perRound: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const roundStart = process.cpuUsage();
    for (const t of texts) await engine.analyse(t);
    const r = process.cpuUsage(roundStart);
    perRound.push(((r.user + r.system) / 1000 / texts.length).toFixed(3));
  }
  const used = process.cpuUsage(cpuStart);
  // The first round meets most words for the first time (caches cold), the later ones do not.
  console.log(`  per round: ${perRound.join(" / ")} ms`);
  console.log(
    `trained engine, whole analysis after warm-up: CPU ${((used.user + used.system) / 1000 / (rounds * texts.length)).toFixed(3)} ms per answer (${rounds * texts.length} answers)`,
  );
}

if (flags["cpu-only"]) {
  // Only the trained engine in this process, as in the worker.
  await engineCpu(createInsightsEngine({ modelsDir: path.join(ROOT, ".bench-no-models"), sentimentModel: "(none)" }));
  process.exit(0);
}
for (const [setName, file] of sets) {
  const examples = readLabelledFile(file);
  console.log(`\n## ${setName}: ${examples.length} answers`);
  for (const [engineName, engine] of engines) {
    await engine.warmUp();
    const predicted: Predicted[] = [];
    const latencies: number[] = [];
    const ids = new Set<string>();
    const cpuStart = process.cpuUsage();
    for (const ex of examples) {
      const start = performance.now();
      const r = await engine.analyse(ex.text);
      latencies.push(performance.now() - start);
      ids.add(r.engine.sentiment);
      predicted.push({ sentiment: r.ai_insights.sentiment, actionable: r.ai_insights.actionable });
    }
    const cpu = process.cpuUsage(cpuStart);
    // CPU time (user + system) is what the intake pays per analysed answer; wall time on a
    // shared machine also counts other processes.
    const cpuPerAnswer = (cpu.user + cpu.system) / 1000 / examples.length;
    const report = scorePredictions(examples, predicted);
    const sorted = latencies.sort((a, b) => a - b);
    console.log(formatReport(`${engineName} [${[...ids].join(", ")}]`, report));
    const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
    console.log(
      `  whole analysis per answer: p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms, mean ${mean.toFixed(3)} ms, CPU ${cpuPerAnswer.toFixed(3)} ms`,
    );
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

console.log("");
await engineCpu(engines[1]![1]);

// The trained model alone (no wink-nlp parse): the cost the worker pays for sentiment + actionable.
const model = embeddedModel();
const heldout = readLabelledFile(path.join(ROOT, "corpus", "insights", "heldout.jsonl"));
predict(model, "Warm up the word vectors.");
const start = performance.now();
const cpuStart = process.cpuUsage();
for (let round = 0; round < 5; round++) for (const ex of heldout) predict(model, ex.text);
const cpuModel = process.cpuUsage(cpuStart);
console.log(
  `\ntrained model alone: ${((performance.now() - start) / (5 * heldout.length)).toFixed(3)} ms per answer, CPU ${((cpuModel.user + cpuModel.system) / 1000 / (5 * heldout.length)).toFixed(3)} ms (mean over ${5 * heldout.length})`,
);

if (!flags["no-lodo"] && !flags.data?.length) {
  const corpus: LabelledAnswer[] = readLabelledFile(path.join(ROOT, "corpus", "insights", "train.jsonl"));
  const domains = [...new Set(corpus.map((e) => e.domain ?? "?"))];
  let correct = 0;
  const parts: string[] = [];
  for (const d of domains) {
    const test = corpus.filter((e) => e.domain === d);
    const m = trainModel(
      "lodo",
      corpus.filter((e) => e.domain !== d),
    );
    const r = scorePredictions(
      test,
      test.map((e) => predict(m, e.text)),
    );
    correct += r.accuracy * r.answers;
    parts.push(`${d} ${(100 * r.accuracy).toFixed(1)}%`);
  }
  console.log(`\ntrained, leave-one-domain-out on the training corpus: ${((100 * correct) / corpus.length).toFixed(1)}% (${parts.join(", ")})`);
}

// Long spoken answers: topics against hand-marked ones, summary shape, sentiment.
const LONG_DIR = path.join(ROOT, "corpus", "insights", "long");
const FILLER = /\b(?:um+|uh+|erm+|er|you know)\b|,\s*like,/i;
const stem = (w: string) =>
  w
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "")
    .replace(/(?:ies)$/, "y")
    .replace(/(?:es|s)$/, "");
const STOP = new Set(["the", "a", "an", "of", "and", "for", "to", "in", "on", "at", "with", "my", "our", "your"]);
const wordsOf = (phrase: string) =>
  phrase
    .split(/\s+/)
    .filter((w) => !STOP.has(w.toLowerCase()))
    .map(stem)
    .filter(Boolean);
/** A topic matches an expected one when they share a content word ("login" ~ "fingerprint login"). */
const matches = (a: string, b: string) => wordsOf(a).some((w) => wordsOf(b).includes(w));
const trainedEngine = engines[1]![1];
let predictedTopics = 0,
  hitTopics = 0,
  expectedTopics = 0,
  foundExpected = 0,
  fillerTopics = 0;
let maxSentences = 0,
  fillerSummaries = 0,
  sentimentHits = 0,
  actionableHits = 0;
const summaryChars: number[] = [];
const examples: string[] = [];
const files = readdirSync(LONG_DIR)
  .filter((f) => f.endsWith(".txt"))
  .sort();
for (const f of files) {
  const [head, text] = readFileSync(path.join(LONG_DIR, f), "utf8").split("\n---\n") as [string, string];
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(head)?.[1]?.trim() ?? "";
  const expected = field("topics")
    .split(";")
    .map((t) => t.trim())
    .filter(Boolean);
  const r = await trainedEngine.analyse(text);
  const topics = r.ai_insights.key_topics;
  predictedTopics += topics.length;
  hitTopics += topics.filter((t) => expected.some((e) => matches(t, e))).length;
  expectedTopics += expected.length;
  foundExpected += expected.filter((e) => topics.some((t) => matches(t, e))).length;
  fillerTopics += topics.filter((t) => FILLER.test(t)).length;
  const summary = r.ai_insights.summary;
  const sentences = summary.split(/(?<=[.!?…])\s+/).filter((x) => x.trim() !== "").length;
  maxSentences = Math.max(maxSentences, sentences);
  if (FILLER.test(summary)) fillerSummaries++;
  summaryChars.push(summary.length);
  if (r.ai_insights.sentiment === field("sentiment")) sentimentHits++;
  if (r.ai_insights.actionable === (field("actionable") === "yes")) actionableHits++;
  if (flags["long-examples"]!.split(",").includes(f.slice(0, 2))) {
    examples.push(`${f} (${text.split(/\s+/).length} words)\n  topics: ${topics.join("; ")}\n  expected: ${expected.join("; ")}\n  summary: ${summary}`);
  }
}
const words = files.map((f) => readFileSync(path.join(LONG_DIR, f), "utf8").split("\n---\n")[1]!.split(/\s+/).length);
console.log(`\nlong spoken answers (${files.length} transcripts, ${Math.min(...words)}–${Math.max(...words)} words), trained engine:`);
console.log(
  `  topics: precision ${((100 * hitTopics) / predictedTopics).toFixed(1)}% (${hitTopics}/${predictedTopics}), recall ${((100 * foundExpected) / expectedTopics).toFixed(1)}% (${foundExpected}/${expectedTopics}), topics with fillers ${fillerTopics}`,
);
console.log(
  `  summary: at most ${maxSentences} sentences, ${Math.min(...summaryChars)}–${Math.max(...summaryChars)} characters, ${fillerSummaries} with fillers`,
);
console.log(`  sentiment ${sentimentHits}/${files.length}, actionable ${actionableHits}/${files.length}`);
for (const e of examples) console.log(e);
