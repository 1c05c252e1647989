/**
 * @module ai/insights/clarity
 * Clarity 0..1: how clear and specific an answer is, to decide on follow-up questions
 * (DESIGN §9). `0.4 × length + 0.6 × specificity − hedges`, clamped to 0..1, where
 *
 * - length = words / 10, capped at 1 ("It's okay." ≈ 0.3);
 * - specificity = (named things + numbers + 0.5 × other verbs) / 3, capped at 1, where named
 *   things are the distinct nouns of the answer's noun phrases (./phrases.ts);
 * - hedges: 0.15 for each distinct hedge ("I don't know", "maybe", "I guess", "kind of",
 *   "stuff", "whatever", "not sure", …), at most 0.45.
 */
import type { ParsedText } from "./text.ts";

/** Words for a full length score. */
const FULL_LENGTH_WORDS = 10;
/** Specific items (named things, numbers) for a full specificity score. */
const FULL_SPECIFICITY_ITEMS = 3;
const LENGTH_WEIGHT = 0.4;
const SPECIFICITY_WEIGHT = 0.6;
const HEDGE_PENALTY = 0.15;
const MAX_HEDGE_PENALTY = 0.45;

/** Hedges on normal forms (wink splits "don't" into "do not"). */
export const HEDGES = [
  "do not know",
  "dont know",
  "dunno",
  "idk",
  "not sure",
  "maybe",
  "perhaps",
  "i guess",
  "kind of",
  "sort of",
  "stuff",
  "things",
  "whatever",
  "something like that",
  "or something",
  "hmm",
  "um",
  "uh",
  "i suppose",
  "no idea",
  "not really",
  "meh",
  "etc",
  "i think",
  "somewhat",
];

/**
 * Finds the distinct hedges in an answer.
 * @returns hedge phrases from {@link HEDGES}, in list order.
 */
export function findHedges(parsed: ParsedText): string[] {
  const joined = ` ${parsed.tokens
    .filter((t) => t.type === "word")
    .map((t) => t.normal)
    .join(" ")} `;
  return HEDGES.filter((h) => joined.includes(` ${h} `));
}

/**
 * Scores clarity.
 * @returns 0..1, two decimals; 0 for an empty answer.
 */
export function scoreClarity(parsed: ParsedText): number {
  const words = parsed.tokens.filter((t) => t.type === "word");
  if (words.length === 0) return 0;
  const length = Math.min(1, words.length / FULL_LENGTH_WORDS);
  const namedThings = new Set(parsed.phrases.flatMap((p) => p.key.split(" ")));
  const numbers = parsed.tokens.filter((t) => t.type === "number" || t.pos === "NUM").length;
  const verbs = words.filter((t) => t.pos === "VERB" && !t.isStop).length;
  const specificity = Math.min(1, (namedThings.size + numbers + 0.5 * verbs) / FULL_SPECIFICITY_ITEMS);
  const hedges = Math.min(MAX_HEDGE_PENALTY, findHedges(parsed).length * HEDGE_PENALTY);
  const clarity = LENGTH_WEIGHT * length + SPECIFICITY_WEIGHT * specificity - hedges;
  return Math.round(Math.max(0, Math.min(1, clarity)) * 100) / 100;
}
