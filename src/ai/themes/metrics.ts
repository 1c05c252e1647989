/**
 * @module ai/themes/metrics
 * Clustering agreement scores for the theme evaluation (bench/themes.ts, docs/insights.md
 * "Themes"): adjusted Rand index (Hubert & Arabie 1985) and normalised mutual information
 * (arithmetic-mean normalisation, as scikit-learn's default). Labels are any strings or numbers;
 * both arrays have the same length.
 */

function contingency(a: ArrayLike<string | number>, b: ArrayLike<string | number>) {
  const table = new Map<string, number>();
  const rows = new Map<string | number, number>();
  const cols = new Map<string | number, number>();
  for (let i = 0; i < a.length; i++) {
    const key = `${a[i]}\u0000${b[i]}`;
    table.set(key, (table.get(key) ?? 0) + 1);
    rows.set(a[i]!, (rows.get(a[i]!) ?? 0) + 1);
    cols.set(b[i]!, (cols.get(b[i]!) ?? 0) + 1);
  }
  return { table: [...table.values()], rows: [...rows.values()], cols: [...cols.values()], n: a.length };
}

const pairs = (x: number) => (x * (x - 1)) / 2;

/** Adjusted Rand index of two labelings: 1 identical, about 0 for chance, can be negative. */
export function adjustedRandIndex(truth: ArrayLike<string | number>, predicted: ArrayLike<string | number>): number {
  const { table, rows, cols, n } = contingency(truth, predicted);
  const index = table.reduce((s, x) => s + pairs(x), 0);
  const sumRows = rows.reduce((s, x) => s + pairs(x), 0);
  const sumCols = cols.reduce((s, x) => s + pairs(x), 0);
  const expected = (sumRows * sumCols) / pairs(n);
  const max = (sumRows + sumCols) / 2;
  return max === expected ? 1 : (index - expected) / (max - expected);
}

function entropy(counts: number[], n: number): number {
  return -counts.reduce((s, c) => (c > 0 ? s + (c / n) * Math.log(c / n) : s), 0);
}

/** Normalised mutual information, MI / mean(H(truth), H(predicted)); 1 when both are one cluster. */
export function normalisedMutualInformation(truth: ArrayLike<string | number>, predicted: ArrayLike<string | number>): number {
  const n = truth.length;
  const rows = new Map<string, number>();
  const cols = new Map<string, number>();
  const joint = new Map<string, { t: string; p: string; c: number }>();
  for (let i = 0; i < n; i++) {
    const t = String(truth[i]);
    const p = String(predicted[i]);
    rows.set(t, (rows.get(t) ?? 0) + 1);
    cols.set(p, (cols.get(p) ?? 0) + 1);
    const cell = joint.get(`${t}\u0000${p}`) ?? { t, p, c: 0 };
    cell.c++;
    joint.set(`${t}\u0000${p}`, cell);
  }
  let mi = 0;
  for (const { t, p, c } of joint.values()) mi += (c / n) * Math.log((n * c) / (rows.get(t)! * cols.get(p)!));
  const h = (entropy([...rows.values()], n) + entropy([...cols.values()], n)) / 2;
  return h === 0 ? 1 : mi / h;
}
