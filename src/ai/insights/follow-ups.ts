/**
 * @module ai/insights/follow-ups
 * Follow-up questions for dynamic probing (DESIGN §9): asked only when probing is enabled and
 * the answer's clarity is below the link's threshold; up to `max_follow_ups` of them. Each
 * names one of the answer's topics, phrased by the answer's tone; when the answer names nothing,
 * the question's own subject is used when it has a clear one, else short generic questions.
 * The tone decides the wording (issue 24): a complaint — a negative answer, or one that reports
 * a problem whatever its sentiment — gets "what would have made … better" probes and never a
 * question about what the respondent liked; a request gets "what would you change"; only a
 * positive answer without a problem is asked what it liked most. A follow-up never quotes the
 * prompt (the page shows the question above it) and ends in exactly one question mark.
 */
import { lexicon as VADER_LEXICON } from "vader-sentiment/src/vader_lexicon.js";
import { type ParsedText, parseText } from "./text.ts";
import { extractKeyTopics } from "./topics.ts";
import type { Sentiment } from "./types.ts";

/** Clarity below which probing asks, when the link does not say (DESIGN §9). */
export const DEFAULT_CLARITY_THRESHOLD = 0.6;
/** Follow-ups per answer when the link does not say. */
export const DEFAULT_MAX_FOLLOW_UPS = 1;
/** Hard cap, whatever the link says: respondents should not be interrogated. */
export const MAX_FOLLOW_UPS_CAP = 5;

/** What the generator needs to know about the answer. */
export interface FollowUpInput {
  clarity: number;
  topics: string[];
  sentiment: Sentiment;
  actionable: boolean;
  /**
   * The answer reports a problem (./cues.ts) or a second engine reads it as negative, whatever
   * `sentiment` says: probed as a complaint.
   */
  reportsProblem?: boolean;
  /** Sentiment score −1..1; "what did you like" needs at least {@link PRAISE_MIN_SCORE}. */
  sentimentScore?: number;
  /**
   * The answer says it liked something ({@link expressesLiking}); "what did you like most"
   * presupposes it. Absent: taken from the sentiment alone.
   */
  praises?: boolean;
  /** The question the answer replied to, if known. */
  prompt?: string;
}

/** Probing settings, already resolved from the link's evaluator config. */
export interface ProbingSettings {
  enabled: boolean;
  clarityThreshold: number;
  maxFollowUps: number;
}

const GENERIC_QUESTIONS = [
  "Could you tell us a bit more — what specifically stood out to you?",
  "Could you give an example of what you mean?",
  "What would have made your experience better?",
  "Is there anything else you would like us to know?",
  "How did that affect you?",
];

/** Generic probes for a complaint: about what went wrong and what would have been better. */
const COMPLAINT_QUESTIONS = [
  "What would have made your experience better?",
  "Could you tell us a bit more about what happened?",
  "Could you give an example of what went wrong?",
  "How did that affect you?",
  "Is there anything else you would like us to know?",
];

/**
 * A positive answer is asked what it liked only when the engine is this sure (P(positive) −
 * P(negative)): asking a complaint what it liked is worse than a neutral "tell us more".
 */
export const PRAISE_MIN_SCORE = 0.5;

/** How a follow-up is worded. */
type Tone = "complaint" | "request" | "praise" | "neutral";

function toneOf(input: FollowUpInput): Tone {
  if (input.sentiment === "negative" || input.reportsProblem) return "complaint";
  if (input.actionable) return "request";
  const confident = input.sentiment === "positive" && (input.sentimentScore ?? 1) >= PRAISE_MIN_SCORE;
  return confident && input.praises !== false ? "praise" : "neutral";
}

/** VADER valence from which a word is praise ("good" 1.9, "nice" 1.8, "fine" 0.8 is not). */
const PRAISE_VALENCE = 1.5;
/** Verbs that say the writer liked something ("like" is left out: a filler and a comparison). */
const PRAISE_VERBS = new Set(["love", "enjoy", "appreciate", "recommend", "adore"]);
/** A leading 0–6 score (an NPS detractor) is not praise, whatever the words say. */
const DETRACTOR_SCORE = /^\s*(?:[0-6])(?:\s*\/\s*10|\s*out of\s*10)?\b/;

/**
 * Whether an answer says it liked something: outside negation scope, a praise adjective or
 * adverb (VADER valence ≥ 1.5: "the staff were lovely") or a verb of liking ("love it",
 * "would recommend"), and no leading 0–6 score. Nouns and verbs such as "help", and
 * interjections ("cheers", "thanks", often sarcastic) do not count.
 * @param parsed the answer as parsed by ./text.ts.
 */
export function expressesLiking(parsed: ParsedText): boolean {
  if (DETRACTOR_SCORE.test(parsed.text)) return false;
  return parsed.tokens.some(
    (t) =>
      !t.isNegated &&
      (((t.pos === "ADJ" || t.pos === "ADV") && (VADER_LEXICON[t.normal] ?? 0) >= PRAISE_VALENCE) || (t.pos === "VERB" && PRAISE_VERBS.has(t.lemma))),
  );
}

/**
 * Whether a question asks what the respondent liked or enjoyed — never asked about a complaint
 * (also applied to an LLM's suggestions, ./llm.ts).
 */
export function asksWhatTheyLiked(question: string): boolean {
  return /\b(?:like|liked|love|loved|enjoy|enjoyed|favou?rite)\b[^?]*\b(?:most|best|about)\b|\bwhat (?:was|were) (?:good|great|best)\b|\bfavou?rite\b/i.test(
    question,
  );
}

/**
 * Nouns a prompt names without being its subject ("in your own words", "here today", "speak or
 * type"): a follow-up about them would sound odd.
 */
const NOT_A_SUBJECT = new Set([
  "word",
  "words",
  "today",
  "type",
  "time",
  "times",
  "way",
  "ways",
  "thing",
  "things",
  "anything",
  "something",
  "bit",
  "lot",
  "answer",
  "question",
  "minute",
  "minutes",
  "second",
  "seconds",
  "day",
  "days",
  "us",
  "you",
  "one",
  "example",
  "detail",
  "details",
  "more",
  "scale",
]);

/** The subject a prompt asks about ("What did you think of the product?" → "product"), or null. */
export function promptSubject(prompt: string | undefined): string | null {
  if (!prompt?.trim()) return null;
  const topic = extractKeyTopics(parseText(prompt)).find((t) => !t.split(/\s+/).some((w) => NOT_A_SUBJECT.has(w)));
  return topic ? cleanTopic(topic) : null;
}

/** A topic as it may appear inside a sentence: no quotes, no edge punctuation, single spaces. */
function cleanTopic(topic: string): string | null {
  const cleaned = topic
    .replace(/["“”‘’«»]/g, "")
    .replace(/\s+/g, " ")
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, "");
  return cleaned === "" ? null : cleaned;
}

/** One question as it is shown: single spaces, and one final "?" whatever came before it. */
export function tidyQuestion(question: string): string {
  const text = question
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\s"“”‘’'.!?…,;:—–-]+$/u, "");
  return `${text}?`;
}

function subjectQuestion(subject: string, tone: Tone): string {
  if (tone === "complaint") return `What would have made the ${subject} better?`;
  if (tone === "request") return `What would you change about the ${subject}?`;
  if (tone === "praise") return `What did you like most about the ${subject}?`;
  return `What stood out to you about the ${subject}?`;
}

function topicQuestion(topic: string, tone: Tone): string {
  if (tone === "complaint") return `You mentioned the ${topic} — what would have made it better?`;
  if (tone === "request") return `You mentioned the ${topic} — what would you change about it?`;
  if (tone === "praise") return `You mentioned the ${topic} — what did you like most about it?`;
  return `You mentioned the ${topic} — could you tell us more about it?`;
}

/**
 * Whether to ask follow-ups at all.
 * @returns true when probing is enabled, at least one may be asked, and clarity < threshold.
 */
export function shouldProbe(clarity: number, settings: ProbingSettings): boolean {
  return settings.enabled && settings.maxFollowUps > 0 && clarity < settings.clarityThreshold;
}

/**
 * Generates follow-up questions.
 * @returns `[]` unless {@link shouldProbe}; otherwise exactly `maxFollowUps` (≤ 5) distinct
 *   questions: one per topic in topic order, then one about the prompt's subject (only when the
 *   answer has no topic), then generic ones; each ends in a single "?".
 */
export function generateFollowUps(input: FollowUpInput, settings: ProbingSettings): string[] {
  if (!shouldProbe(input.clarity, settings)) return [];
  const count = Math.min(settings.maxFollowUps, MAX_FOLLOW_UPS_CAP);
  const tone = toneOf(input);
  const topics = input.topics.map(cleanTopic).filter((t): t is string => t !== null);
  const questions = topics.slice(0, count).map((topic) => topicQuestion(topic, tone));
  const subject = topics.length === 0 ? promptSubject(input.prompt) : null;
  const pool = tone === "complaint" ? COMPLAINT_QUESTIONS : GENERIC_QUESTIONS;
  const generic = subject ? [subjectQuestion(subject, tone), ...pool] : pool;
  for (const q of generic) {
    if (questions.length >= count) break;
    if (!questions.includes(q)) questions.push(q);
  }
  return questions.map(tidyQuestion);
}

/**
 * Resolves a link's evaluator settings, clamping out-of-range values instead of failing.
 * @returns threshold in 0..1 (default 0.6) and an integer 0..5 follow-ups (default 1).
 */
export function resolveProbing(enabled: boolean | undefined, config: { clarity_threshold?: number; max_follow_ups?: number } | undefined): ProbingSettings {
  const threshold = config?.clarity_threshold;
  const max = config?.max_follow_ups;
  return {
    enabled: enabled === true,
    clarityThreshold: typeof threshold === "number" && Number.isFinite(threshold) ? Math.max(0, Math.min(1, threshold)) : DEFAULT_CLARITY_THRESHOLD,
    maxFollowUps: typeof max === "number" && Number.isFinite(max) ? Math.max(0, Math.min(MAX_FOLLOW_UPS_CAP, Math.floor(max))) : DEFAULT_MAX_FOLLOW_UPS,
  };
}
