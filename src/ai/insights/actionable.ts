/**
 * @module ai/insights/actionable
 * Whether an answer gives the team something to act on. Rule-based, three rules, any of which
 * is enough:
 *
 * 1. it asks for or suggests something (request cues, ./cues.ts): "please add…", "should",
 *    "would be nice", "need", "can you…?", "Add…";
 * 2. it reports a concrete problem (problem cues, ./cues.ts): "crashes", "broken", "doesn't
 *    work", "error", "arrived late";
 * 3. it complains about a named thing: a sentence VADER scores at or below −0.3 that contains a
 *    noun phrase which is neither generic nor itself an opinion word ("I hate the new layout"
 *    yes; "Terrible experience" and "What a waste" no).
 *
 * Praise ("the staff were lovely") and vague opinions ("not for me") are not actionable.
 */
import type { Cue } from "./cues.ts";
import { isSentimentWord, vaderCompound } from "./sentiment-lexicon.ts";
import type { ParsedText } from "./text.ts";

/** VADER compound at or below which a sentence is a complaint. */
export const COMPLAINT_MAX_COMPOUND = -0.3;

/** True when the phrase names a thing, not an opinion ("waste", "disaster"). */
function isConcrete(phraseText: string): boolean {
  return phraseText.split(" ").some((word) => !isSentimentWord(word));
}

/**
 * Finds sentences that complain about a named thing (rule 3).
 * @returns sentence indices, ascending.
 */
export function findComplaintSentences(parsed: ParsedText): number[] {
  const out: number[] = [];
  parsed.sentences.forEach((sentence, index) => {
    if (vaderCompound(sentence) > COMPLAINT_MAX_COMPOUND) return;
    if (parsed.phrases.some((p) => p.sentence === index && isConcrete(p.text))) out.push(index);
  });
  return out;
}

/**
 * Decides whether an answer is actionable.
 * @param parsed the parsed answer.
 * @param cues request and problem cues already found for it (./cues.ts).
 * @returns true when any of the three rules in this module's header fires.
 */
export function isActionable(parsed: ParsedText, cues: Cue[]): boolean {
  return cues.length > 0 || findComplaintSentences(parsed).length > 0;
}
