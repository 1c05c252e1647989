/**
 * @module ai/insights/sentiment-lexicon
 * The always-available sentiment engine: VADER (vader-sentiment 1.1.3, Hutto & Gilbert 2014),
 * a lexicon-and-rules model that needs no weights. Its compound score is used with the
 * thresholds its authors recommend (±0.05), plus one product-feedback rule: VADER's social-media
 * lexicon has no valence for bug reports such as "keeps crashing" or "doesn't load", so a text
 * VADER scores as neutral-to-mildly-positive that reports a concrete problem (./cues.ts) is
 * negative.
 */
import { SentimentIntensityAnalyzer } from "vader-sentiment";
import type { Sentiment, SentimentResult } from "./types.ts";

/** Value of `engine.sentiment` when this engine answered. */
export const LEXICON_ENGINE_ID = "lexicon:vader";

/** VADER's recommended boundary between neutral and polar compound scores. */
export const VADER_NEUTRAL_BAND = 0.05;

/** Score given to a problem report that VADER found neutral: clearly, not strongly, negative. */
const PROBLEM_REPORT_SCORE = -0.4;

/** Above this VADER score a problem mention is a minor point in praise ("love it, one bug"). */
const PRAISE_OVERRIDES_PROBLEM = 0.5;

/**
 * VADER's compound score.
 * @returns −1..1; 0 for text without sentiment-laden words.
 */
export function vaderCompound(text: string): number {
  return SentimentIntensityAnalyzer.polarity_scores(text).compound;
}

/**
 * Answers of {@link isSentimentWord} by word. A VADER call costs microseconds and the phrase
 * chunker asks about every adjective and noun of every answer — a third of the analysis's CPU
 * before this cache (bench/insights.ts --cpu-only, profiled); answers' words repeat, so the
 * cache stays small. Cleared when it reaches {@link SENTIMENT_WORD_CACHE_MAX} words.
 */
const sentimentWordCache = new Map<string, boolean>();
const SENTIMENT_WORD_CACHE_MAX = 50_000;

/** True when VADER gives the single word a polarity (|compound| ≥ 0.05): "great", "rude". */
export function isSentimentWord(word: string): boolean {
  let known = sentimentWordCache.get(word);
  if (known === undefined) {
    known = Math.abs(vaderCompound(word)) >= VADER_NEUTRAL_BAND;
    if (sentimentWordCache.size >= SENTIMENT_WORD_CACHE_MAX) sentimentWordCache.clear();
    sentimentWordCache.set(word, known);
  }
  return known;
}

/** Maps a −1..1 score to a label with VADER's ±0.05 band. */
export function labelFromScore(score: number): Sentiment {
  if (score >= VADER_NEUTRAL_BAND) return "positive";
  if (score <= -VADER_NEUTRAL_BAND) return "negative";
  return "neutral";
}

/**
 * Lexicon sentiment of one answer.
 * @param text the answer.
 * @param reportsProblem whether the answer reports a concrete problem (see ./cues.ts); lets a
 *   bug report that VADER scores as neutral count as negative.
 * @returns label and score −1..1 (three decimals).
 */
export function lexiconSentiment(text: string, reportsProblem: boolean): SentimentResult {
  let score = vaderCompound(text);
  if (reportsProblem && score > -VADER_NEUTRAL_BAND && score < PRAISE_OVERRIDES_PROBLEM) {
    score = Math.min(PROBLEM_REPORT_SCORE, score - 0.4);
  }
  score = Math.round(score * 1000) / 1000;
  return { sentiment: labelFromScore(score), score };
}
