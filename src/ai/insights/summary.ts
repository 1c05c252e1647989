/**
 * @module ai/insights/summary
 * Extractive summary: the answer's own sentences (wink-nlp sentence splitting), at most two,
 * in their original order. A sentence scores the summed in-answer frequency of its content
 * lemmas divided by √(their count) (sentences about what the answer keeps coming back to score
 * higher), plus 1 when it holds a request or problem and 0.3 for the first sentence, divided by
 * how far the sentence runs past {@link LONG_SENTENCE_WORDS} words (spoken run-ons would
 * otherwise fill the summary and be cut). The engine passes the answer without disfluencies
 * (./disfluency.ts). A transcript without punctuation is one long "sentence"; it is cut at a
 * word boundary.
 */
import type { Cue } from "./cues.ts";
import type { ParsedText } from "./text.ts";

/** At most this many sentences in a summary. */
export const MAX_SUMMARY_SENTENCES = 2;

/** Longest summary in characters (before the ellipsis). */
export const MAX_SUMMARY_CHARS = 280;

/** Sentences longer than this many words score proportionally less. */
export const LONG_SENTENCE_WORDS = 30;

const CUE_BONUS = 1;
const FIRST_SENTENCE_BONUS = 0.3;

function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > maxChars / 2 ? cut.slice(0, lastSpace) : cut).replace(/[\s,;:.]+$/, "")}…`;
}

/**
 * Builds the summary.
 * @param parsed the parsed answer.
 * @param cues request/problem cues (./cues.ts); their sentences are preferred.
 * @returns at most {@link MAX_SUMMARY_SENTENCES} sentences joined by a space, at most
 *   {@link MAX_SUMMARY_CHARS} characters plus "…"; "" for an empty answer.
 */
export function summarise(parsed: ParsedText, cues: Cue[]): string {
  const sentences = parsed.sentences;
  if (sentences.length <= MAX_SUMMARY_SENTENCES) {
    return truncate(sentences.join(" ").trim(), MAX_SUMMARY_CHARS);
  }
  const content = parsed.tokens.filter((t) => t.type === "word" && !t.isStop);
  const frequency = new Map<string, number>();
  for (const t of content) frequency.set(t.lemma, (frequency.get(t.lemma) ?? 0) + 1);
  const cueSentences = new Set(cues.map((c) => c.sentence));
  const scored = sentences.map((text, index) => {
    const lemmas = content.filter((t) => t.sentence === index).map((t) => t.lemma);
    const weight = lemmas.length === 0 ? 0 : lemmas.reduce((sum, l) => sum + (frequency.get(l) ?? 0), 0) / Math.sqrt(lemmas.length);
    const bonus = (cueSentences.has(index) ? CUE_BONUS : 0) + (index === 0 ? FIRST_SENTENCE_BONUS : 0);
    const words = text.split(/\s+/).length;
    return { text, index, score: (weight + bonus) / Math.max(1, words / LONG_SENTENCE_WORDS) };
  });
  const best: typeof scored = [];
  for (const candidate of scored.sort((a, b) => b.score - a.score || a.index - b.index)) {
    // A repeated sentence (common in transcripts) is said once.
    if (best.some((s) => s.text === candidate.text)) continue;
    best.push(candidate);
    if (best.length === MAX_SUMMARY_SENTENCES) break;
  }
  best.sort((a, b) => a.index - b.index);
  return truncate(best.map((s) => s.text).join(" "), MAX_SUMMARY_CHARS);
}
