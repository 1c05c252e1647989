/**
 * @module ai/themes/quotes
 * Representative quotes of a theme: sentences of its answers closest to the theme's centre, 2–3
 * per theme, never two from one answer and never two near-duplicates (cosine ≥
 * {@link DUPLICATE_COSINE}). Sentences of 4 to 40 words are preferred: a quote is read aloud or
 * played, and "Yes." or a two-minute run-on says little.
 */
import { dot } from "./linalg.ts";
import { splitSentences } from "./tokens.ts";

/**
 * A quote: the answer it comes from (its index in the build's input) and the sentence; `followUp`:
 * the quote is that follow-up answer of the answer (its index in `follow_ups`), not the answer's text.
 */
export interface Quote {
  answer: number;
  text: string;
  similarity: number;
  followUp?: number;
}

/** A follow-up answer as a quote candidate: its place in `follow_ups`, text and vector (build's space). */
export type FollowUpCandidate = { index: number; text: string; vector: Float32Array };

export const DUPLICATE_COSINE = 0.9;
/** Answers nearest the centre whose sentences are considered. */
const CANDIDATE_ANSWERS = 20;

/** `members` ordered by cosine to `centre`, highest first (ties: lower index); one dot product each. */
export function nearestFirst(members: number[], vectors: Float32Array[], centre: Float32Array): number[] {
  const sims = new Map(members.map((i) => [i, dot(vectors[i]!, centre)]));
  return [...members].sort((a, b) => sims.get(b)! - sims.get(a)! || a - b);
}

/**
 * Picks a theme's quotes.
 * @param members indices of the theme's answers.
 * @param texts all answers' texts (indexed like `vectors`).
 * @param vectors all answers' vectors, in the build's space (unit length).
 * @param centre the theme's unit centre.
 * @param embed a sentence → vector function in the same space as `vectors`; null: sentences of a
 *   multi-sentence answer score as the answer does (the first one of 4–40 words wins).
 * @param followUps per answer (indexed like `vectors`), its answered follow-ups with their own
 *   vectors: each is a candidate too, whole (issue 24; docs/insights.md "Follow-up answers").
 * @returns 3 quotes when the theme has 6+ answers, else 2 (or fewer when it has fewer answers).
 */
export function pickQuotes(
  members: number[],
  texts: string[],
  vectors: Float32Array[],
  centre: Float32Array,
  embed: ((text: string) => Float32Array) | null,
  followUps: (readonly FollowUpCandidate[] | undefined)[] = [],
): Quote[] {
  const want = Math.min(members.length, members.length >= 6 ? 3 : 2);
  const near = nearestFirst(members, vectors, centre).slice(0, CANDIDATE_ANSWERS);
  const candidates: (Quote & { vector: Float32Array })[] = [];
  const fitOf = (text: string) => {
    const words = text.split(/\s+/).length;
    return words >= 4 && words <= 40 ? 1 : 0.8;
  };
  for (const answer of near) {
    const extra = followUps[answer] ?? [];
    const sentences = splitSentences(texts[answer]!);
    for (const text of sentences.length > 0 ? sentences : [texts[answer]!]) {
      // The answer's vector also holds its follow-up answers: its own words alone are embedded
      // when it has some ("Not sure." must not score as what its follow-up said).
      const vector = (sentences.length > 1 || extra.length > 0) && embed ? embed(text) : vectors[answer]!;
      candidates.push({ answer, text, similarity: dot(vector, centre) * fitOf(text), vector });
    }
    for (const f of extra) candidates.push({ answer, text: f.text, similarity: dot(f.vector, centre) * fitOf(f.text), vector: f.vector, followUp: f.index });
  }
  candidates.sort((a, b) => b.similarity - a.similarity || a.answer - b.answer);
  const chosen: typeof candidates = [];
  for (const c of candidates) {
    if (chosen.length >= want) break;
    if (chosen.some((q) => q.answer === c.answer || dot(q.vector, c.vector) >= DUPLICATE_COSINE)) continue;
    chosen.push(c);
  }
  return chosen.map(({ answer, text, similarity, followUp }) => ({ answer, text, similarity, ...(followUp === undefined ? {} : { followUp }) }));
}
