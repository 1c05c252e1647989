/**
 * @module ai/themes/cluster
 * Finds the themes of one question's answer vectors: agglomerative clustering (average linkage
 * on cosine distance, ./linkage.ts) of a deterministic sample of at most
 * {@link ClusterOptions.sample} answers, cut at a distance threshold, so the number of themes is
 * found, not fixed; clusters smaller than `minSize` are not themes. Then every answer (in the
 * sample or not) joins its nearest theme centre when the cosine reaches `assign`, else stays
 * unassigned, and the centres are recomputed from their members (`refine` rounds). Linkage is
 * O(n²) in time and memory, hence the sample: 2,000 answers take a 32 MB matrix and about 0.5 s,
 * and each other answer costs one dot product per theme (docs/decisions/themes.md).
 */
import { centroid, dot } from "./linalg.ts";
import { averageLinkage, cutMerges } from "./linkage.ts";

/** Options; defaults in {@link DEFAULT_CLUSTER_OPTIONS} (measured on the dev set). */
export interface ClusterOptions {
  /** Cosine distance at which the dendrogram is cut (average linkage). */
  cut: number;
  /** Smallest cluster that is a theme: max(minSize, ceil(minShare · n)). */
  minSize: number;
  minShare: number;
  /** Cosine similarity to a theme centre an answer needs to join it. */
  assign: number;
  /** Most answers clustered by linkage; the rest are assigned to the found centres. */
  sample: number;
  /** Rounds of centre recomputation after assignment. */
  refine: number;
}

export const DEFAULT_CLUSTER_OPTIONS: ClusterOptions = { cut: 0.85, minSize: 3, minShare: 0.03, assign: 0.15, sample: 2000, refine: 2 };

/** Result: `centres[k]` is theme k's unit centre; `labels[i]` is answer i's theme index or -1. */
export interface Clustering {
  centres: Float32Array[];
  labels: Int32Array;
}

/** Indices of a deterministic, evenly spread sample of `n` items, at most `max`. */
export function sampleIndices(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: max }, (_, k) => Math.floor((k * n) / max));
}

/** Each vector's nearest centre index (or -1 under `threshold`) and similarity. */
export function nearest(v: Float32Array, centres: Float32Array[], threshold: number): { index: number; similarity: number } {
  let index = -1;
  let similarity = -Infinity;
  for (let k = 0; k < centres.length; k++) {
    const s = dot(v, centres[k]!);
    if (s > similarity) {
      similarity = s;
      index = k;
    }
  }
  return similarity >= threshold ? { index, similarity } : { index: -1, similarity };
}

/**
 * Clusters unit vectors (see the module comment). Deterministic for the same input order.
 * @param vectors unit-length, all of the same length; may be empty.
 */
export function clusterVectors(vectors: Float32Array[], options: Partial<ClusterOptions> = {}): Clustering {
  const o = { ...DEFAULT_CLUSTER_OPTIONS, ...options };
  const n = vectors.length;
  const labels = new Int32Array(n).fill(-1);
  if (n === 0) return { centres: [], labels };
  const dims = vectors[0]!.length;
  const sample = sampleIndices(n, o.sample);
  const minSize = Math.max(o.minSize, Math.ceil(o.minShare * n));
  let centres: Float32Array[] = [];
  if (sample.length >= 2) {
    const m = sample.length;
    const distances = new Float64Array(m * m);
    for (let x = 0; x < m; x++)
      for (let y = x + 1; y < m; y++) {
        const d = Math.max(0, 1 - dot(vectors[sample[x]!]!, vectors[sample[y]!]!));
        distances[x * m + y] = d;
        distances[y * m + x] = d;
      }
    const groups = cutMerges(averageLinkage(distances, m), m, o.cut).map((g) => g.map((x) => sample[x]!));
    // Minimum size measured on the sample, scaled: a theme of 3 % of the answers stays one.
    const minInSample = Math.max(2, Math.round((minSize * sample.length) / n));
    centres = groups
      .filter((g) => g.length >= minInSample)
      .sort((x, y) => y.length - x.length || x[0]! - y[0]!)
      .map((g) =>
        centroid(
          g.map((i) => vectors[i]!),
          dims,
        ),
      );
  } else if (n >= minSize) {
    centres = [centroid(vectors, dims)];
  }
  for (let round = 0; round <= o.refine && centres.length > 0; round++) {
    for (let i = 0; i < n; i++) labels[i] = nearest(vectors[i]!, centres, o.assign).index;
    const members: Float32Array[][] = centres.map(() => []);
    for (let i = 0; i < n; i++) if (labels[i]! >= 0) members[labels[i]!]!.push(vectors[i]!);
    // A theme that lost its members to its neighbours is dropped; its answers are reassigned.
    const kept = members.map((m, k) => ({ m, k })).filter(({ m }) => m.length >= minSize);
    const changed = kept.length !== centres.length;
    centres = kept.map(({ m }) => centroid(m, dims));
    if (round === o.refine && changed) round--; // reassign once more after dropping a theme
  }
  if (centres.length === 0) labels.fill(-1);
  else for (let i = 0; i < n; i++) labels[i] = nearest(vectors[i]!, centres, o.assign).index;
  return { centres, labels };
}
