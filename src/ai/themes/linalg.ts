/**
 * @module ai/themes/linalg
 * The few vector operations the theme engine needs, on Float32Array (dense, fixed length).
 */

/** Dot product of two vectors of equal length (cosine similarity when both are unit length). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Scales `v` to unit length in place; a zero vector stays zero. Returns `v`. */
export function normalise(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v));
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/** The unit-length mean of `vectors` (all of length `dims`); zero when the list is empty. */
export function centroid(vectors: Float32Array[], dims: number): Float32Array {
  const c = new Float32Array(dims);
  for (const v of vectors) for (let i = 0; i < dims; i++) c[i]! += v[i]!;
  return normalise(c);
}

/**
 * The first principal component (unit length) of `vectors`, by power iteration on the
 * uncentred second-moment matrix as SIF does (Arora et al. 2017: the direction every sentence
 * shares, mostly frequent-word and style content). 30 iterations, deterministic start.
 * Returns null for fewer than 2 vectors.
 */
export function firstComponent(vectors: Float32Array[], dims: number): Float32Array | null {
  if (vectors.length < 2) return null;
  let u = normalise(new Float32Array(dims).fill(1));
  for (let it = 0; it < 30; it++) {
    const next = new Float32Array(dims);
    for (const v of vectors) {
      const p = dot(v, u);
      for (let i = 0; i < dims; i++) next[i]! += p * v[i]!;
    }
    u = normalise(next);
  }
  return u;
}

/** `v` minus its projection on unit `u`, scaled back to unit length (a new array). */
export function removeComponent(v: Float32Array, u: Float32Array | null): Float32Array {
  const out = Float32Array.from(v);
  if (!u) return out;
  const p = dot(v, u);
  for (let i = 0; i < out.length; i++) out[i]! -= p * u[i]!;
  return normalise(out);
}

/** `v` with each of `components` removed in order (see {@link removeComponent}); a new array. */
export function removeComponents(v: Float32Array, components: Float32Array[]): Float32Array {
  let out: Float32Array = Float32Array.from(v);
  for (const u of components) out = removeComponent(out, u);
  return out;
}
