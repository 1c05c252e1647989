import { describe, expect, test } from "bun:test";
import { agnes } from "ml-hclust";
import { averageLinkage, cutMerges } from "./linkage.ts";

/** Seeded PRNG (mulberry32). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Points in a few blobs (so cuts fall between real clusters) and their Euclidean distances. */
function blobs(n: number, seed: number): number[][] {
  const r = rng(seed);
  const centres = Array.from({ length: 4 }, () => [r() * 10, r() * 10, r() * 10]);
  const points = Array.from({ length: n }, (_, i) => centres[i % 4]!.map((c) => c + r() * 3));
  return points.map((p) => points.map((q) => Math.hypot(...p.map((x, d) => x - q[d]!))));
}

/** ml-hclust's average-linkage cut, as sorted index lists ordered by smallest index. */
function reference(d: number[][], height: number): number[][] {
  const tree = agnes(d, { method: "average", isDistanceMatrix: true });
  return tree
    .cut(height)
    .map((c) => {
      const members: number[] = [];
      c.traverse((node) => {
        if (node.isLeaf) members.push(node.index);
      });
      return members.sort((a, b) => a - b);
    })
    .sort((a, b) => a[0]! - b[0]!);
}

describe("average linkage (nearest-neighbour chain)", () => {
  for (const [n, seed] of [
    [12, 1],
    [40, 2],
    [90, 3],
  ] as const) {
    test(`cuts into the same clusters as ml-hclust's agnes (n=${n})`, () => {
      const d = blobs(n, seed);
      const merges = averageLinkage(Float64Array.from(d.flat()), n);
      expect(merges).toHaveLength(n - 1);
      for (const height of [0.5, 2, 4, 8, 100]) expect(cutMerges(merges, n, height)).toEqual(reference(d, height));
    });
  }

  test("merge heights are the average distance between the joined clusters", () => {
    // Points on a line at 0, 1, 5: {0,1} merge at 1, then {0,1}+{5} at (5 + 4) / 2.
    const d = [
      [0, 1, 5],
      [1, 0, 4],
      [5, 4, 0],
    ];
    const merges = averageLinkage(Float64Array.from(d.flat()), 3);
    expect(merges.map((m) => m.height).sort((a, b) => a - b)).toEqual([1, 4.5]);
    expect(cutMerges(merges, 3, 2)).toEqual([[0, 1], [2]]);
  });

  test("one point gives no merge and one cluster", () => {
    expect(averageLinkage(new Float64Array([0]), 1)).toEqual([]);
    expect(cutMerges([], 1, 1)).toEqual([[0]]);
  });
});
