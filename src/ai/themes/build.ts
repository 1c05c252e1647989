/**
 * @module ai/themes/build
 * Builds the themes of one open question (DESIGN §12, issue 24) from its answers' vectors:
 * the common component is removed (SIF), answers near an operator's theme (its example answers
 * or its centre) go to it first, the rest are clustered (./cluster.ts), and each found theme gets
 * a label (./labels.ts) and 2–3 quotes (./quotes.ts). Pure and deterministic: the same input in
 * the same order gives the same output. Storage, ids that outlive a rebuild (./incremental.ts
 * `reconcileThemes`) and the worker are the caller's.
 */
import { candidatesOf, labelFrom, themeKeyphrases, type Candidates } from "./labels.ts";
import { centroid, dot, firstComponent, removeComponents } from "./linalg.ts";
import background from "./common-component.json" with { type: "json" };
import { clusterVectors, DEFAULT_CLUSTER_OPTIONS, sampleIndices, type ClusterOptions } from "./cluster.ts";
import { nearestFirst, pickQuotes, type Quote } from "./quotes.ts";
import type { Embedder } from "./embedder.ts";

/** What the build needs of the engine that made the vectors (see {@link buildThemes}). */
export type EngineInfo = Pick<Embedder, "id" | "dimensions"> & { embed?: Embedder["embed"] };

/**
 * One answer of the question: caller's id, text, and its embedder vector (unit length);
 * `followUps`: its answered follow-ups with their own vectors (same engine), quote candidates.
 */
export interface ThemeInput {
  id: string;
  text: string;
  vector: Float32Array;
  followUps?: { index: number; text: string; vector: Float32Array }[];
}

/** An operator's theme (codebook entry) that the build keeps and that attracts nearby answers. */
export interface SeedTheme {
  key: string;
  label: string;
  /** Embedder vectors of the operator's example answers (may be empty: then only `members`). */
  examples: Float32Array[];
  /** Answer ids the operator put in this theme (moved or examples); they stay in it. */
  members: string[];
}

/** A built theme. `key` is `seed.key` for an operator's theme, else `theme-<rank by size>`. */
export interface BuiltTheme {
  key: string;
  label: string;
  keyphrases: string[];
  seeded: boolean;
  /** Input indices of the theme's answers. */
  members: number[];
  quotes: Quote[];
  /** Unit centre in the build's space (after the common component is removed). */
  centre: Float32Array;
}

/** The result: themes largest first, and each input's theme key (null: unassigned). */
export interface ThemeBuild {
  engine: string;
  /** The common components removed, in order (store them: ./incremental.ts `assignAnswer` needs them). */
  components: Float32Array[];
  themes: BuiltTheme[];
  assignments: (string | null)[];
}

export interface BuildOptions {
  cluster?: Partial<ClusterOptions>;
  /**
   * Which common component to remove (SIF): `question` (default) — the first principal component
   * of this question's answers (SIF's own way; it also takes out what every answer to the question
   * talks about); `background` — that of feedback answers in general (./common-component.json,
   * from the insights training corpus); `none`. `question` measured best on the dev set, for small
   * questions too (docs/decisions/themes.md).
   */
  common?: "question" | "background" | "none";
  seeds?: SeedTheme[];
  /** Answers whose theme an operator fixed (`null`: keep unassigned); overrides everything. */
  fixed?: Map<string, string | null>;
  /** Most answers parsed for labels per theme (nearest the centre first). */
  labelSample?: number;
}

/**
 * Cosine to an operator's example at which an answer joins that theme before clustering (so the
 * clustering does not build a copy of the operator's theme); nearer answers join it afterwards
 * when it beats their cluster.
 */
export const SEED_ASSIGN = 0.55;

/**
 * Builds the themes (see the module comment).
 * @param inputs the question's answers, vectors from `embedder`.
 * @param embedder the engine that made the vectors: its id is kept, and its `embed` (when it has
 *   one that runs in the thread) ranks the sentences of multi-sentence answers for quotes. An
 *   engine that embeds elsewhere (the sentence-embedding model in the worker) passes only `id`
 *   and `dimensions`: quotes then rank answers, and take an answer's first sentence of 4–40 words.
 */
export function buildThemes(inputs: ThemeInput[], embedder: EngineInfo, options: BuildOptions = {}): ThemeBuild {
  const dims = embedder.dimensions;
  const fixed = options.fixed ?? new Map<string, string | null>();
  const seeds = options.seeds ?? [];
  const live = inputs.map((a) => a.vector).filter((v) => dot(v, v) > 0);
  const common = options.common ?? "question";
  const components: Float32Array[] = [];
  if (common === "background" && background.vector.length === dims) components.push(Float32Array.from(background.vector));
  if (common === "question") {
    const step = Math.ceil(live.length / 2000) || 1;
    const pc = firstComponent(
      live.filter((_, i) => i % step === 0).map((v) => removeComponents(v, components)),
      dims,
    );
    if (pc) components.push(pc);
  }
  const project = (v: Float32Array) => removeComponents(v, components);
  const vectors = inputs.map((a) => (dot(a.vector, a.vector) > 0 ? project(a.vector) : a.vector));

  // 1. Operator themes: fixed members, then answers near an example.
  const seedOf = new Int32Array(inputs.length).fill(-1);
  const seedIndex = new Map(seeds.map((s, k) => [s.key, k]));
  const seedExamples = seeds.map((s) => s.examples.map(project));
  inputs.forEach((a, i) => {
    const f = fixed.get(a.id);
    if (f !== undefined) seedOf[i] = f === null ? -2 : (seedIndex.get(f) ?? -2);
  });
  const position = new Map(inputs.map((a, i) => [a.id, i]));
  seeds.forEach((s, k) => {
    for (const id of s.members) {
      const i = position.get(id);
      if (i !== undefined && seedOf[i] === -1) seedOf[i] = k;
    }
  });
  vectors.forEach((v, i) => {
    if (seedOf[i] !== -1 || dot(v, v) === 0) return;
    let best = -1;
    let bestSim = SEED_ASSIGN;
    seedExamples.forEach((ex, k) => {
      for (const e of ex) {
        const s = dot(v, e);
        if (s >= bestSim) [best, bestSim] = [k, s];
      }
    });
    if (best >= 0) seedOf[i] = best;
  });

  // 2. Cluster the rest (answers with no known word stay unassigned).
  const free = inputs.map((_, i) => i).filter((i) => seedOf[i] === -1 && dot(vectors[i]!, vectors[i]!) > 0);
  const clustering = clusterVectors(
    free.map((i) => vectors[i]!),
    options.cluster,
  );
  const labels = new Int32Array(inputs.length).fill(-1);
  seedOf.forEach((k, i) => {
    if (k >= 0) labels[i] = k;
  });
  free.forEach((i, j) => {
    if (clustering.labels[j]! >= 0) labels[i] = seeds.length + clustering.labels[j]!;
  });
  // 3. An operator's theme competes with the found ones for every free answer: it scores by its
  // nearest example or its centre (examples and members), and wins when nearer than the answer's
  // cluster and above the assignment threshold.
  if (seeds.length > 0) {
    const threshold = options.cluster?.assign ?? DEFAULT_CLUSTER_OPTIONS.assign;
    const seedCentres = seeds.map((_, k) => {
      const own = labels.reduce<Float32Array[]>((acc, l, i) => (l === k ? [...acc, vectors[i]!] : acc), []);
      return centroid([...seedExamples[k]!, ...own], dims);
    });
    free.forEach((i, j) => {
      const v = vectors[i]!;
      const c = clustering.labels[j]!;
      const current = c >= 0 ? dot(v, clustering.centres[c]!) : -Infinity;
      let best = -1;
      let bestSim = Math.max(threshold, current);
      seeds.forEach((_, k) => {
        const sim = Math.max(dot(v, seedCentres[k]!), ...seedExamples[k]!.map((e) => dot(v, e)));
        if (sim > bestSim) [best, bestSim] = [k, sim];
      });
      if (best >= 0) labels[i] = best;
    });
  }
  const count = seeds.length + clustering.centres.length;
  const members: number[][] = Array.from({ length: count }, () => []);
  labels.forEach((k, i) => {
    if (k >= 0) members[k]!.push(i);
  });
  const centres = members.map((m, k) =>
    m.length > 0
      ? centroid(
          m.map((i) => vectors[i]!),
          dims,
        )
      : k < seeds.length
        ? centroid(seedExamples[k]!, dims)
        : clustering.centres[k - seeds.length]!,
  );

  // 3. Labels from a bounded sample of each theme (nearest the centre) and of the unassigned.
  const per = options.labelSample ?? 150;
  const parsed = new Map<number, Candidates>();
  const sampleOf = (idx: number[], centre: Float32Array) => nearestFirst(idx, vectors, centre).slice(0, per);
  const picked = [...members.flatMap((m, k) => sampleOf(m, centres[k]!)), ...sampleIndices(inputs.length, per * 2).filter((i) => labels[i] === -1)];
  for (const i of picked) if (!parsed.has(i)) parsed.set(i, candidatesOf(inputs[i]!.text));
  const order = [...parsed.keys()];
  const keyphrases = themeKeyphrases(
    order.map((i) => parsed.get(i)!),
    order.map((i) => labels[i]!),
    count,
  );

  const sentenceEmbed = embedder.embed;
  const embed = sentenceEmbed ? (text: string) => project(sentenceEmbed(text)) : null;
  const texts = inputs.map((a) => a.text);
  const followUps = inputs.map((a) =>
    a.followUps?.filter((f) => f.vector.length === dims && dot(f.vector, f.vector) > 0).map((f) => ({ ...f, vector: project(f.vector) })),
  );
  const themes: BuiltTheme[] = members.map((m, k) => ({
    key: k < seeds.length ? seeds[k]!.key : "",
    label: k < seeds.length ? seeds[k]!.label : labelFrom(keyphrases[k]!),
    keyphrases: keyphrases[k]!.map((p) => p.text),
    seeded: k < seeds.length,
    members: m,
    quotes: m.length > 0 ? pickQuotes(m, texts, vectors, centres[k]!, embed, followUps) : [],
    centre: centres[k]!,
  }));
  const ranked = themes.filter((t) => t.seeded || t.members.length > 0).sort((a, b) => b.members.length - a.members.length || a.members[0]! - b.members[0]!);
  let rank = 0;
  for (const t of ranked) if (!t.seeded) t.key = `theme-${++rank}`;
  const keyOf = new Map(themes.map((t, k) => [k, t.key]));
  return { engine: embedder.id, components, themes: ranked, assignments: Array.from(labels, (k) => (k >= 0 ? keyOf.get(k)! : null)) };
}
