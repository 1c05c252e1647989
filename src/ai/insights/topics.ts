/**
 * @module ai/insights/topics
 * Key topics: the answer's noun phrases (./phrases.ts), ranked by how often they occur (by
 * lemma, so "card" and "cards" count together), then by first appearance, with single words
 * dropped when a longer chosen phrase contains them ("page" under "checkout page") and counted
 * with the longer phrase they head when the answer uses one ("app" with "banking app").
 */
import type { Phrase } from "./phrases.ts";
import type { ParsedText } from "./text.ts";

/** At most this many topics are returned (DESIGN §7). */
export const MAX_KEY_TOPICS = 5;

/**
 * Extracts key topics.
 * @returns up to {@link MAX_KEY_TOPICS} lowercase, distinct phrases, most important first,
 *   e.g. `["checkout page", "card"]`; empty when the answer names nothing.
 */
export function extractKeyTopics(parsed: ParsedText): string[] {
  const byKey = new Map<string, { phrase: Phrase; count: number }>();
  for (const phrase of parsed.phrases) {
    const entry = byKey.get(phrase.key);
    if (entry) entry.count += 1;
    else byKey.set(phrase.key, { phrase, count: 1 });
  }
  // A single word that is the head of a longer phrase the answer also uses is counted as that
  // phrase ("app" … "banking app" → "banking app"): the fuller name is what a person would say.
  for (const [key, entry] of byKey) {
    if (entry.phrase.words !== 1) continue;
    let best: { phrase: Phrase; count: number } | undefined;
    for (const other of byKey.values()) {
      if (other.phrase.words > 1 && other.phrase.key.endsWith(` ${key}`) && (!best || other.count > best.count)) best = other;
    }
    if (best) {
      best.count += entry.count;
      byKey.delete(key);
    }
  }
  const ranked = [...byKey.values()].sort((a, b) => b.count - a.count || b.phrase.words - a.phrase.words || a.phrase.start - b.phrase.start);
  const chosen: Phrase[] = [];
  for (const { phrase } of ranked) {
    const inside = chosen.some((c) => c.words > phrase.words && ` ${c.text} `.includes(` ${phrase.text} `));
    const seen = chosen.some((c) => c.text === phrase.text);
    if (!inside && !seen) chosen.push(phrase);
    if (chosen.length === MAX_KEY_TOPICS) break;
  }
  return chosen.map((p) => p.text);
}
