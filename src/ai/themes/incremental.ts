/**
 * @module ai/themes/incremental
 * Themes between rebuilds (issue 24 "Incremental and stable"): a new answer joins its nearest
 * theme in the job that analyses it ({@link assignAnswer}), and a rebuild keeps the identity of
 * a theme whose membership mostly carries over ({@link reconcileThemes}). Pure functions; the
 * caller stores the {@link ThemeModel} and the ids.
 */
import { dot, removeComponents } from "./linalg.ts";
import { DEFAULT_CLUSTER_OPTIONS } from "./cluster.ts";

/** What assignment needs of a built question: store it with the themes (Float32Arrays). */
export interface ThemeModel {
  /** Embedder id the vectors come from; a vector of another engine is not assigned. */
  engine: string;
  /** The common components removed by the build, in order (`ThemeBuild.components`). */
  components: Float32Array[];
  /** Cosine to a theme centre (or an operator's example) an answer needs. */
  threshold: number;
  themes: { id: string; centre: Float32Array; examples?: Float32Array[] }[];
}

/** A new answer's theme and its cosine (best of the centre and the operator's examples). */
export interface Assignment {
  theme: string | null;
  similarity: number;
}

/** Default {@link ThemeModel.threshold}: the build's own assignment threshold. */
export const DEFAULT_ASSIGN_THRESHOLD = DEFAULT_CLUSTER_OPTIONS.assign;

/**
 * Assigns one answer's embedder vector to the nearest theme, or to none under the threshold.
 * An operator's example answers attract answers near them as well as the centre does (their
 * vectors are projected like the answer's). About 1 µs per theme with 100-d vectors.
 * @param vector raw embedder vector (unit length; all zeros gives no theme).
 * @param engine the embedder id of `vector`; another engine's model assigns nothing.
 */
export function assignAnswer(vector: Float32Array, engine: string, model: ThemeModel): Assignment {
  if (engine !== model.engine || dot(vector, vector) === 0) return { theme: null, similarity: 0 };
  const v = removeComponents(vector, model.components);
  let theme: string | null = null;
  let similarity = -1;
  for (const t of model.themes) {
    let s = dot(v, t.centre);
    for (const e of t.examples ?? []) s = Math.max(s, dot(v, removeComponents(e, model.components)));
    if (s > similarity) [theme, similarity] = [t.id, s];
  }
  return similarity >= model.threshold ? { theme, similarity } : { theme: null, similarity };
}

/** A theme before the rebuild: its id, members, and whether an operator owns it. */
export interface PreviousTheme {
  id: string;
  members: string[];
  /** Operator's theme (created, renamed-and-pinned, or kept by a merge): never discarded. */
  operator: boolean;
}

/** Jaccard overlap a new cluster must exceed to keep an old theme's id ("mostly carries over"). */
export const CARRY_OVER_JACCARD = 0.5;

/** Jaccard index of two id sets (0 when both are empty). */
export function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
}

/** The outcome: per new cluster the id it takes (an old one, or null for a new theme). */
export interface Reconciliation {
  ids: (string | null)[];
  /** Old themes no cluster carried over: auto ones may go; operator ones are to be kept. */
  unmatched: { id: string; operator: boolean }[];
}

/**
 * Maps the clusters of a rebuild to the themes before it: pairs are taken greedily by Jaccard
 * overlap, highest first (ties: larger old theme, then id), each old and each new used once, a
 * pair only when the overlap exceeds `minJaccard` (a theme split in two halves keeps its id in neither). An operator's merge is passed as the surviving theme
 * alone, with the union of both members, so a cluster that re-forms the pair keeps the survivor's id. Operator themes are not
 * matched here when the build got them as seeds (pass only the auto themes then); the ones left
 * unmatched are reported so the caller keeps them.
 * @param previous themes before the rebuild.
 * @param clusters members (answer ids) of each new cluster.
 */
export function reconcileThemes(previous: PreviousTheme[], clusters: string[][], minJaccard = CARRY_OVER_JACCARD): Reconciliation {
  const newSets = clusters.map((c) => new Set(c));
  const oldSets = previous.map((p) => new Set(p.members));
  const pairs: { o: number; n: number; j: number }[] = [];
  oldSets.forEach((o, oi) =>
    newSets.forEach((n, ni) => {
      const j = jaccard(o, n);
      if (j > minJaccard) pairs.push({ o: oi, n: ni, j });
    }),
  );
  pairs.sort((a, b) => b.j - a.j || oldSets[b.o]!.size - oldSets[a.o]!.size || (previous[a.o]!.id < previous[b.o]!.id ? -1 : 1) || a.n - b.n);
  const ids: (string | null)[] = clusters.map(() => null);
  const usedOld = new Set<number>();
  for (const { o, n } of pairs) {
    if (usedOld.has(o) || ids[n] !== null) continue;
    ids[n] = previous[o]!.id;
    usedOld.add(o);
  }
  const unmatched = previous.filter((_, i) => !usedOld.has(i)).map((p) => ({ id: p.id, operator: p.operator }));
  return { ids, unmatched };
}
