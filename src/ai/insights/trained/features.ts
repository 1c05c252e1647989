/**
 * @module ai/insights/trained/features
 * Turns one answer into the sparse feature vector of the trained insights model
 * (docs/insights.md, "The trained engine"). Deterministic and dependency-free apart from VADER:
 *
 * - spoken-answer clean-up: fillers ("um", "erm", ", like,") and stutters ("the, the") removed;
 * - words with negation scope marked (`not good` → `good` becomes `¬good` up to the next
 *   punctuation or "but"), word bigrams, and character 3–5-grams of each word (robust to typos);
 * - a few dense features: VADER lexicon valences (vader-sentiment's word list, negation-flipped
 *   as VADER does, normalised like its compound score) of the whole answer, its last clause and
 *   its most negative sentence (a direct lexicon pass: VADER's own scorer costs ~0.5 ms a call);
 *   a leading 0–10 score (NPS explanations); durations ("forty minutes", "3 weeks"); question
 *   marks; request openers ("could you", "would be nice"); comparisons with the past ("used to").
 *
 * Hashed features land in `HASH_BUCKETS` buckets (FNV-1a): words, bigrams and last-clause words
 * form one group and character n-grams another, each scaled to unit length, the character group
 * then down-weighted. Dense features follow at fixed indices.
 */
import { lexicon as VADER_LEXICON } from "vader-sentiment/src/vader_lexicon.js";
import { VECTOR_DIMENSIONS, wordVectors } from "./vectors.ts";

/** Number of hashed buckets; dense features start at this index. */
export const HASH_BUCKETS = 1 << 17;

/** Names of the scalar dense features, in index order after the hashed buckets. */
const SCALAR_FEATURES = [
  "bias",
  "lexicon_compound",
  "lexicon_pos",
  "lexicon_neg",
  "last_clause_compound",
  "min_sentence_compound",
  "score_low",
  "score_mid",
  "score_high",
  "duration",
  "question",
  "request_opener",
  "used_to",
  "length",
] as const;

/**
 * Names of the dense features, in index order after the hashed buckets: the scalar ones, then
 * the SIF-averaged word vector of the words outside negation scope (`vec0`…`vec99`) and of the
 * words inside it (`neg0`…`neg99`), each scaled to unit length (./vectors.ts).
 */
export const DENSE_FEATURES: readonly string[] = [
  ...SCALAR_FEATURES,
  ...Array.from({ length: VECTOR_DIMENSIONS }, (_, d) => `vec${d}`),
  ...Array.from({ length: VECTOR_DIMENSIONS }, (_, d) => `neg${d}`),
];
const VECTOR_OFFSET = SCALAR_FEATURES.length;
const NEGATED_OFFSET = VECTOR_OFFSET + VECTOR_DIMENSIONS;

/** Total feature count (hashed + dense). */
export const FEATURE_COUNT = HASH_BUCKETS + DENSE_FEATURES.length;

/** A sparse vector: parallel arrays of feature indices and values. */
export interface SparseVector {
  indices: Int32Array;
  values: Float32Array;
}

const FILLERS = /\b(?:u+m+|u+h+|e+r+m+|e+r+|a+h+|h+m+|uhm|mm+)\b[,.]?/g;
const DISCOURSE = /(^|[,.;!?]\s*)(?:like|you know|i mean|so|well|right|okay|ok|yeah|look|basically|honestly)\s*,/g;
const STUTTER = /\b([a-z']+)(?:[,.]?\s+\1\b)+/g;
const NEGATORS = new Set(["not", "no", "never", "nobody", "nothing", "none", "neither", "nor", "cannot", "without", "hardly", "barely", "nowhere"]);
const SCOPE_BREAK = new Set(["but", "though", "although", "however", "yet"]);
const NEGATION_SCOPE_WORDS = 4;
/**
 * Weight of the character n-gram group relative to the word group (each group is scaled to unit
 * length first). 5-fold CV on the training corpus: 0 → 84.0 %, 0.3 → 84.2 %, 0.6 → 83.5 %,
 * ungrouped 1/√n over all hashed features → 81.2 %.
 */
const CHAR_GROUP_WEIGHT = 0.3;
/**
 * Length of each word-vector group (see {@link DENSE_FEATURES}). Leave-one-domain-out accuracy
 * on the training corpus (3,565 answers): 0 (no vectors) → 81.9 %, 1 → 82.4 %, 2 → 82.6 %;
 * 5-fold CV 82.9 / 83.1 / 82.9 %, 3 → 82.7 %. A third group for the last clause: CV 83.0 %,
 * leave-one-domain-out 82.4 % — not kept. Cluster features (each word's spherical k-means cluster
 * of the vectors, 256 clusters, as hashed features) on 3,716 answers: CV 83.4 → 83.2 %,
 * leave-one-domain-out 82.4 → 81.9 % — not kept.
 */
const VECTOR_GROUP_WEIGHT = 2;
const DURATION =
  /\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|half an?|several|few)\s*(?:-\s*)?(?:seconds?|mins?|minutes?|hours?|hrs?|days?|weeks?|months?|years?)\b/;
const REQUEST_OPENER =
  /\b(?:could you|can you|can we|could we|would be (?:nice|great|good|handy|useful|helpful|lovely|grand)|it'?d (?:be|help)|please|would love|i'?d love|i'?d like|wish|any chance|maybe (?:add|have|give|offer)|would help|would appreciate|should (?:add|have|offer))\b/;
const USED_TO = /\b(?:used to|anymore|any more|not anymore|now it'?s|these days|since the (?:new|update|redesign|change|merger|refurb))\b/;
const LEADING_SCORE = /^\s*(\d{1,2})(?:\s*\/\s*10|\s*out of\s*10)?\b/;

/**
 * Normalises an answer for feature extraction: lowercase, straight apostrophes, "n't" → " not",
 * fillers and stutters removed.
 * @returns the cleaned text (may be empty).
 */
export function normaliseAnswer(text: string): string {
  let t = text.toLowerCase().replace(/[’‘`]/g, "'").replace(/[“”]/g, '"');
  t = t
    .replace(/\bcan't\b/g, "can not")
    .replace(/\bwon't\b/g, "will not")
    .replace(/n't\b/g, " not");
  t = t.replace(/\b(?:dont|doesnt|didnt|isnt|wasnt|wont|cant|couldnt|wouldnt|havent|hasnt|arent|werent)\b/g, (w) =>
    w === "cant" ? "can not" : w === "wont" ? "will not" : `${w.slice(0, -2)} not`,
  );
  t = t.replace(FILLERS, " ").replace(DISCOURSE, "$1").replace(STUTTER, "$1");
  return t.replace(/\s+/g, " ").trim();
}

/** FNV-1a state after "c:", the prefix of character n-gram features. */
const CHAR_PREFIX_HASH = fnvState("c:");

/** FNV-1a 32-bit hash of a string. */
function fnv1a(s: string): number {
  return fnvState(s);
}

/** FNV-1a state after `s` (the hash of `s`); feeding more characters continues it. */
function fnvState(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Splits cleaned text into word and punctuation tokens. */
function tokenise(clean: string): string[] {
  return clean.match(/[a-z0-9]+(?:'[a-z]+)?|[.,;:!?]/g) ?? [];
}

/** Words with negation scope marked by a leading "¬". */
function markNegation(tokens: string[]): string[] {
  const out: string[] = [];
  let scope = 0;
  for (const tok of tokens) {
    if (/^[.,;:!?]$/.test(tok) || SCOPE_BREAK.has(tok)) {
      scope = 0;
      out.push(tok);
      continue;
    }
    out.push(scope > 0 ? `¬${tok}` : tok);
    scope = NEGATORS.has(tok) ? NEGATION_SCOPE_WORDS : Math.max(0, scope - 1);
  }
  return out;
}

/** Words after the last punctuation or contrast word (none when the answer is one clause). */
function lastClause(marked: string[]): string[] {
  for (let i = marked.length - 2; i >= 0; i--) {
    if (/^[.,;:!?]$/.test(marked[i]!) || SCOPE_BREAK.has(marked[i]!)) {
      return marked.slice(i + 1).filter((w) => !/^[.,;:!?]$/.test(w));
    }
  }
  return [];
}

/** VADER's scalar for a negated word's valence. */
const NEGATION_SCALAR = -0.74;

/** Lexicon valence of one (possibly "¬"-marked) word; 0 when unknown. */
function valence(word: string): number {
  const negated = word.startsWith("¬");
  const v = VADER_LEXICON[negated ? word.slice(1) : word] ?? 0;
  return negated ? v * NEGATION_SCALAR : v;
}

/** VADER's normalisation of a valence sum into −1..1. */
function normalise(sum: number): number {
  return sum / Math.sqrt(sum * sum + 15);
}

/**
 * Writes the unit-length SIF averages of the words outside negation scope (from
 * {@link VECTOR_OFFSET}) and of the "¬"-marked words inside it (from {@link NEGATED_OFFSET})
 * into `dense`; a group with no known word stays zero. One pass over the words.
 */
function addVectorGroups(words: string[], dense: Float32Array): void {
  const { index, data, sif } = wordVectors();
  let plainWeight = 0;
  let negatedWeight = 0;
  for (const w of words) {
    const negated = w.startsWith("¬");
    const row = index.get(negated ? w.slice(1) : w);
    if (row === undefined) continue;
    const weight = sif[row]!;
    const offset = negated ? NEGATED_OFFSET : VECTOR_OFFSET;
    if (negated) negatedWeight += weight;
    else plainWeight += weight;
    const base = row * VECTOR_DIMENSIONS;
    for (let d = 0; d < VECTOR_DIMENSIONS; d++) dense[offset + d] = dense[offset + d]! + weight * data[base + d]!;
  }
  if (plainWeight > 0) scaleToLength(dense, VECTOR_OFFSET);
  if (negatedWeight > 0) scaleToLength(dense, NEGATED_OFFSET);
}

/** Scales `dense[offset … offset + VECTOR_DIMENSIONS)` to length {@link VECTOR_GROUP_WEIGHT}. */
function scaleToLength(dense: Float32Array, offset: number): void {
  let norm = 0;
  for (let d = 0; d < VECTOR_DIMENSIONS; d++) norm += dense[offset + d]! * dense[offset + d]!;
  const scale = norm > 0 ? VECTOR_GROUP_WEIGHT / Math.sqrt(norm) : 0;
  for (let d = 0; d < VECTOR_DIMENSIONS; d++) dense[offset + d] = dense[offset + d]! * scale;
}

/**
 * Extracts the feature vector of one answer.
 * @param text the raw answer (typed or transcribed).
 * @returns indices (ascending, unique) and values; hashed features are scaled per group (see
 *   the module header), dense ones are in −1..1.
 */
export function extractFeatures(text: string): SparseVector {
  const clean = normaliseAnswer(text);
  const tokens = tokenise(clean);
  const marked = markNegation(tokens);
  const hashed = new Map<number, number>();
  const group = (feats: Set<string>, weight: number) => {
    if (feats.size === 0) return;
    const v = weight / Math.sqrt(feats.size);
    for (const f of feats) {
      const b = fnv1a(f) % HASH_BUCKETS;
      hashed.set(b, (hashed.get(b) ?? 0) + v);
    }
  };
  const words = marked.filter((t) => !/^[.,;:!?]$/.test(t));
  const wordFeats = new Set<string>();
  for (const w of words) wordFeats.add(`w:${w}`);
  for (let i = 0; i + 1 < marked.length; i++) wordFeats.add(`b:${marked[i]} ${marked[i + 1]}`);
  if (text.includes("!")) wordFeats.add("p:!");
  // Words of the last clause again: a mixed answer leans towards how it ends (docs/insights.md).
  for (const w of lastClause(marked)) wordFeats.add(`l:${w}`);
  group(wordFeats, 1);
  // Character 3–5-grams, hashed as they are read (the same FNV-1a values as hashing the strings
  // `c:<n-gram>`, without building them: a third of the feature pass's time before).
  const charHashes = new Set<number>();
  for (const tok of new Set(tokens)) {
    if (!/^[a-z]/.test(tok)) continue;
    const padded = ` ${tok} `;
    for (let i = 0; i + 3 <= padded.length; i++) {
      let h = CHAR_PREFIX_HASH;
      for (let j = i; j < i + 5 && j < padded.length; j++) {
        h = Math.imul(h ^ padded.charCodeAt(j), 0x01000193) >>> 0;
        if (j >= i + 2) charHashes.add(h);
      }
    }
  }
  if (charHashes.size > 0) {
    const v = CHAR_GROUP_WEIGHT / Math.sqrt(charHashes.size);
    for (const h of charHashes) {
      const b = h % HASH_BUCKETS;
      hashed.set(b, (hashed.get(b) ?? 0) + v);
    }
  }

  const dense = new Float32Array(DENSE_FEATURES.length);
  let pos = 0,
    neg = 0,
    sentenceSum = 0,
    minSentence = 0;
  for (const tok of marked) {
    if (/^[.!?;]$/.test(tok)) {
      minSentence = Math.min(minSentence, normalise(sentenceSum));
      sentenceSum = 0;
      continue;
    }
    const v = valence(tok);
    if (v > 0) pos += v;
    else neg -= v;
    sentenceSum += v;
  }
  minSentence = Math.min(minSentence, normalise(sentenceSum));
  const lastSum = lastClause(marked).reduce((sum, w) => sum + valence(w), 0);
  const score = LEADING_SCORE.exec(clean);
  const scoreValue = score ? Number(score[1]) : NaN;
  dense[0] = 1;
  dense[1] = normalise(pos - neg);
  dense[2] = pos / (pos + neg + words.length || 1);
  dense[3] = neg / (pos + neg + words.length || 1);
  dense[4] = normalise(lastSum);
  dense[5] = minSentence;
  dense[6] = scoreValue <= 6 ? 1 : 0;
  dense[7] = scoreValue >= 7 && scoreValue <= 8 ? 1 : 0;
  dense[8] = scoreValue >= 9 && scoreValue <= 10 ? 1 : 0;
  dense[9] = DURATION.test(clean) ? 1 : 0;
  dense[10] = clean.includes("?") ? 1 : 0;
  dense[11] = REQUEST_OPENER.test(clean) ? 1 : 0;
  dense[12] = USED_TO.test(clean) ? 1 : 0;
  dense[13] = Math.min(1, words.length / 60);
  addVectorGroups(words, dense);

  // A typed array sorts numbers natively (no comparator calls); the order is the same.
  const sortedHashed = Int32Array.from(hashed.keys()).sort();
  const n = sortedHashed.length;
  const indices = new Int32Array(n + dense.length);
  const values = new Float32Array(indices.length);
  indices.set(sortedHashed);
  for (let i = 0; i < n; i++) values[i] = hashed.get(sortedHashed[i]!)!;
  for (let i = 0; i < dense.length; i++) {
    indices[n + i] = HASH_BUCKETS + i;
    values[n + i] = dense[i]!;
  }
  return { indices, values };
}
