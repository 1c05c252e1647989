import { describe, expect, test } from "bun:test";
import { adjustedRandIndex, normalisedMutualInformation } from "./metrics.ts";

// Reference values: scikit-learn's adjusted_rand_score / normalized_mutual_info_score (arithmetic).
describe("clustering metrics", () => {
  test("adjusted Rand index matches the textbook values", () => {
    expect(adjustedRandIndex([0, 0, 1, 1], [0, 0, 1, 1])).toBe(1);
    expect(adjustedRandIndex([0, 0, 1, 1], [1, 1, 0, 0])).toBe(1);
    expect(adjustedRandIndex([0, 0, 1, 1], [0, 0, 1, 2])).toBeCloseTo(0.5714285714, 9);
    expect(adjustedRandIndex([0, 0, 0, 0], [0, 1, 2, 3])).toBe(0);
    expect(adjustedRandIndex(["a", "a", "b", "b"], [0, 1, 0, 1])).toBeCloseTo(-0.5, 9);
  });

  test("NMI matches the textbook values", () => {
    expect(normalisedMutualInformation([0, 0, 1, 1], [1, 1, 0, 0])).toBeCloseTo(1, 12);
    expect(normalisedMutualInformation([0, 0, 1, 1], [0, 0, 1, 2])).toBeCloseTo(0.8, 9);
    expect(normalisedMutualInformation([0, 0, 1, 1], [0, 1, 0, 1])).toBeCloseTo(0, 12);
  });
});
