/**
 * @module bench/themes
 * Theme quality and speed (issue 24; docs/insights.md "Themes", docs/decisions/themes.md).
 *
 * Quality, per question of a labelled set (corpus/themes/<set>/*.txt) and averaged over them:
 * adjusted Rand index and NMI on the gold-themed answers (an unassigned answer counts as a
 * cluster of its own, so leaving answers out is not free), coverage (share of gold-themed answers
 * assigned), unthemed answers left unassigned, and labels: a gold theme is "named" when the label
 * of the found theme holding most of its answers contains one of the words written next to the
 * gold theme in the corpus (before any label existed; equal ignoring a final "s"). Baselines in
 * the same run, each given the gold number of themes: TF-IDF + k-means, averaged word vectors +
 * k-means (both 5 seeds, mean), random labels (5 seeds, mean).
 *
 * Speed (--speed): embedding and rebuilding the themes of 10,000 answers (corpus answers mixed
 * into new ones, deterministic), peak RSS, and the per-answer cost of embedding + assignment.
 *
 *   npx bun bench/themes.ts                  # dev set (the tuning set)
 *   npx bun bench/themes.ts --set heldout    # held-out set (never used for tuning)
 *   npx bun bench/themes.ts --show           # print each question's themes, labels and quotes
 *   npx bun bench/themes.ts --speed [--n 10000]
 *   … --cut 0.75 --assign 0.3 --min-share 0.03 --a 0.001 --common question|background|none --every 3 --no-typos   (ablations)
 */
import { parseArgs } from "node:util";
import { kmeans } from "ml-kmeans";
import { createSifEmbedder, type Embedder } from "../src/ai/themes/embedder.ts";
import { buildThemes, type BuildOptions } from "../src/ai/themes/build.ts";
import { adjustedRandIndex, normalisedMutualInformation } from "../src/ai/themes/metrics.ts";
import { assignAnswer } from "../src/ai/themes/incremental.ts";
import { tokenize } from "../src/ai/themes/tokens.ts";
import { normalise } from "../src/ai/themes/linalg.ts";
import { wordVectors } from "../src/ai/themes/vectors.ts";
import { loadThemeSet, type LabelledQuestion } from "../src/ai/themes/labelled-set.ts";

const { values: flags } = parseArgs({
  options: {
    set: { type: "string", default: "dev" },
    show: { type: "boolean", default: false },
    speed: { type: "boolean", default: false },
    n: { type: "string", default: "10000" },
    cut: { type: "string" },
    refine: { type: "string" },
    assign: { type: "string" },
    "min-share": { type: "string" },
    a: { type: "string" },
    common: { type: "string" },
    every: { type: "string", default: "1" },
    "no-typos": { type: "boolean", default: false },
  },
});

/** Seeded PRNG (mulberry32) for the baselines and the speed corpus. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Scores = { ari: number; nmi: number; coverage: number; nullsLeft: number; named: number; themes: number; goldThemes: number };

const sameWord = (a: string, b: string) => a === b || a.replace(/s$/, "") === b.replace(/s$/, "");

function score(q: LabelledQuestion, predicted: (string | null)[], labels: Map<string, string>): Scores {
  const themed = q.items.map((it, i) => ({ it, p: predicted[i] ?? null })).filter((x) => x.it.gold !== null);
  const truth = themed.map((x) => x.it.gold!);
  const pred = themed.map((x, i) => x.p ?? `unassigned-${i}`);
  const nulls = q.items.map((it, i) => ({ it, p: predicted[i] })).filter((x) => x.it.gold === null);
  let named = 0;
  for (const [gold, words] of q.keywords) {
    const counts = new Map<string, number>();
    for (const x of themed) if (x.it.gold === gold && x.p) counts.set(x.p, (counts.get(x.p) ?? 0) + 1);
    const best = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
    const label = best ? (labels.get(best) ?? "") : "";
    if (label.split(/[\s,]+/).some((w) => words.some((k) => sameWord(w, k)))) named++;
  }
  return {
    ari: adjustedRandIndex(truth, pred),
    nmi: normalisedMutualInformation(truth, pred),
    coverage: themed.filter((x) => x.p !== null).length / themed.length,
    nullsLeft: nulls.length ? nulls.filter((x) => !x.p).length / nulls.length : 1,
    named: named / q.keywords.size,
    themes: labels.size,
    goldThemes: q.keywords.size,
  };
}

function engineOptions(): BuildOptions {
  const cluster: BuildOptions["cluster"] = {};
  if (flags.cut) cluster.cut = Number(flags.cut);
  if (flags.refine) cluster.refine = Number(flags.refine);
  if (flags.assign) cluster.assign = Number(flags.assign);
  if (flags["min-share"]) cluster.minShare = Number(flags["min-share"]);
  return { cluster, ...(flags.common ? { common: flags.common as "question" } : {}) };
}

function runEngine(q: LabelledQuestion, embedder: Embedder, show: boolean): Scores {
  const inputs = q.items.map((it) => ({ id: it.id, text: it.text, vector: embedder.embed(it.text) }));
  const build = buildThemes(inputs, embedder, engineOptions());
  if (show) {
    console.log(`\n### ${q.group} — ${q.question} (${q.items.length} answers)`);
    for (const t of build.themes) {
      const golds = new Map<string, number>();
      for (const m of t.members) golds.set(q.items[m]!.gold ?? "(none)", (golds.get(q.items[m]!.gold ?? "(none)") ?? 0) + 1);
      console.log(
        `- **${t.label}** (${t.members.length}; gold ${[...golds]
          .sort((a, b) => b[1] - a[1])
          .map(([g, c]) => `${g} ${c}`)
          .join(", ")}); keyphrases: ${t.keyphrases.slice(0, 5).join(" · ")}`,
      );
      for (const quote of t.quotes) console.log(`  > "${quote.text}"`);
    }
    const left = build.assignments.map((a, i) => (a ? null : q.items[i]!)).filter((x) => x !== null);
    console.log(`- unassigned (${left.length}): ${left.map((x) => `${x.gold ?? "none"}: "${x.text.slice(0, 60)}"`).join(" | ")}`);
  }
  return score(q, build.assignments, new Map(build.themes.map((t) => [t.key, t.label])));
}

/** k-means with k = the gold number of themes; every answer assigned; label = top TF-IDF word. */
function kmeansBaseline(q: LabelledQuestion, vectors: number[][], seed: number): Scores {
  const k = q.keywords.size;
  const { clusters } = kmeans(vectors, k, { seed, initialization: "kmeans++" });
  const labels = new Map<string, string>();
  for (let c = 0; c < k; c++) {
    const counts = new Map<string, number>();
    q.items.forEach((it, i) => {
      if (clusters[i] === c) for (const w of new Set(tokenize(it.text))) if (w.length > 3) counts.set(w, (counts.get(w) ?? 0) + 1);
    });
    labels.set(`k${c}`, [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "");
  }
  return score(
    q,
    clusters.map((c) => `k${c}`),
    labels,
  );
}

function tfidfVectors(q: LabelledQuestion): number[][] {
  const docs = q.items.map((it) => tokenize(it.text));
  const df = new Map<string, number>();
  for (const d of docs) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  const vocab = [...df.keys()].sort();
  const col = new Map(vocab.map((w, i) => [w, i]));
  return docs.map((d) => {
    const v = new Float32Array(vocab.length);
    for (const w of d) v[col.get(w)!]! += Math.log(1 + docs.length / df.get(w)!);
    return Array.from(normalise(v));
  });
}

function meanWordVectors(q: LabelledQuestion): number[][] {
  const t = wordVectors();
  return q.items.map((it) => {
    const v = new Float32Array(t.dimensions);
    for (const w of tokenize(it.text)) {
      const row = t.index.get(w);
      if (row !== undefined) for (let d = 0; d < t.dimensions; d++) v[d]! += t.vectors[row * t.dimensions + d]!;
    }
    return Array.from(normalise(v));
  });
}

function randomBaseline(q: LabelledQuestion, seed: number): Scores {
  const r = rng(seed);
  return score(
    q,
    q.items.map(() => `r${Math.floor(r() * q.keywords.size)}`),
    new Map(),
  );
}

const mean = (xs: Scores[]): Scores =>
  Object.fromEntries(Object.keys(xs[0]!).map((k) => [k, xs.reduce((s, x) => s + x[k as keyof Scores], 0) / xs.length])) as Scores;

function quality(): void {
  // --every k keeps every k-th answer: the same questions, small (how few answers behave).
  const every = Number(flags.every);
  const questions = loadThemeSet(flags.set!).map((q) => ({ ...q, items: q.items.filter((_, i) => i % every === 0) }));
  const embedder = createSifEmbedder({ ...(flags.a ? { a: Number(flags.a) } : {}), typos: !flags["no-typos"] });
  const seeds = [1, 2, 3, 4, 5];
  const rows: Record<string, Scores[]> = {
    "earshot (sif-wink-100d + agglomerative)": [],
    "tf-idf + k-means (gold k)": [],
    "mean word vectors + k-means (gold k)": [],
    "random (gold k)": [],
  };
  for (const q of questions) {
    const s = {
      engine: runEngine(q, embedder, flags.show!),
      tfidf: mean(seeds.map((sd) => kmeansBaseline(q, tfidfVectors(q), sd))),
      wv: mean(seeds.map((sd) => kmeansBaseline(q, meanWordVectors(q), sd))),
      random: mean(seeds.map((sd) => randomBaseline(q, sd))),
    };
    const keys = Object.keys(rows);
    [s.engine, s.tfidf, s.wv, s.random].forEach((x, i) => rows[keys[i]!]!.push(x));
    if (!flags.show)
      console.log(
        `${q.group}: engine ARI ${s.engine.ari.toFixed(3)} NMI ${s.engine.nmi.toFixed(3)} coverage ${s.engine.coverage.toFixed(2)} themes ${s.engine.themes}/${s.engine.goldThemes} named ${s.engine.named.toFixed(2)} | tf-idf ARI ${s.tfidf.ari.toFixed(3)} | wv ARI ${s.wv.ari.toFixed(3)}`,
      );
  }
  const n = questions.reduce((s, q) => s + q.items.length, 0);
  console.log(`\nset ${flags.set}: ${questions.length} questions, ${n} answers (mean over questions)\n`);
  console.log("| engine | ARI | NMI | coverage | unthemed left out | themes found / gold | gold themes named |\n|---|---:|---:|---:|---:|---:|---:|");
  for (const [name, list] of Object.entries(rows)) {
    const m = mean(list);
    const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
    console.log(
      `| ${name} | ${m.ari.toFixed(3)} | ${m.nmi.toFixed(3)} | ${pct(m.coverage)} | ${pct(m.nullsLeft)} | ${m.themes.toFixed(1)} / ${m.goldThemes.toFixed(1)} | ${name.startsWith("random") ? "—" : pct(m.named)} |`,
    );
  }
}

function speed(): void {
  const n = Number(flags.n);
  const pool = [...loadThemeSet("dev"), ...loadThemeSet("heldout")].flatMap((q) => q.items.map((it) => it.text));
  const r = rng(24);
  // New answers from two corpus answers' halves: realistic words and lengths, few exact repeats.
  const texts = Array.from({ length: n }, () => {
    const a = pool[Math.floor(r() * pool.length)]!.split(" ");
    const b = pool[Math.floor(r() * pool.length)]!.split(" ");
    return [...a.slice(0, Math.ceil(a.length / 2)), ...b.slice(Math.floor(b.length / 2))].join(" ");
  });
  const t0 = performance.now();
  const embedder = createSifEmbedder();
  createSifEmbedder().embed("warm up the typo index: recepsionist");
  const tLoad = performance.now() - t0;
  const cpuStart = process.cpuUsage();
  const t1 = performance.now();
  const inputs = texts.map((text, i) => ({ id: String(i), text, vector: embedder.embed(text) }));
  const tEmbed = performance.now() - t1;
  const t2 = performance.now();
  const build = buildThemes(inputs, embedder);
  const tBuild = performance.now() - t2;
  const used = process.cpuUsage(cpuStart);
  const cpuRebuild = used.user + used.system;
  const model = { engine: embedder.id, components: build.components, threshold: 0.15, themes: build.themes.map((t) => ({ id: t.key, centre: t.centre })) };
  const cpu = process.cpuUsage();
  const t3 = performance.now();
  const m = Math.min(n, 5000);
  for (let i = 0; i < m; i++) assignAnswer(embedder.embed(texts[i]!), embedder.id, model);
  const tAssign = (performance.now() - t3) / m;
  const cpuAssign = (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1000 / m;
  console.log(
    "| answers | load vectors | embed all | build themes | rebuild total (wall) | rebuild CPU | themes | peak RSS | embed + assign per answer (wall / CPU) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  console.log(
    `| ${n} | ${tLoad.toFixed(0)} ms | ${tEmbed.toFixed(0)} ms | ${tBuild.toFixed(0)} ms | ${((tEmbed + tBuild) / 1000).toFixed(2)} s | ${(cpuRebuild / 1e6).toFixed(2)} s | ${build.themes.length} | ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB | ${(tAssign * 1000).toFixed(1)} / ${(cpuAssign * 1000).toFixed(1)} µs |`,
  );
}

if (import.meta.main) {
  if (flags.speed) speed();
  else quality();
}
