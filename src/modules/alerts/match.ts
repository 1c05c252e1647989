/**
 * @module alerts/match
 * Whether an analysed response matches an alert rule (issue 28; docs/alerts.md "Conditions"):
 * pure functions over the response's answers. A condition holds when some answer of the response
 * satisfies it: `negative` (insights sentiment negative), `actionable` (insights actionable),
 * `nps_detractor` (a rating 0–6 on an NPS question), `theme` (the answer's theme), `keyword`
 * (in the transcript or typed text, case-insensitive, on word boundaries).
 */
import { type AlertWords, alertWordsOf, fill } from "./catalog.ts";
import type { AlertCondition } from "./model.ts";

/** What matching reads of one answer. */
export type MatchAnswer = {
  uuid: string;
  /** The transcript, or the typed text, or null. */
  text: string | null;
  sentiment: string | null;
  actionable: boolean;
  /** The rating when the answer is an NPS rating (0–10), else null. */
  nps: number | null;
  themeUuid: string | null;
};

/** A matched rule: the reasons (one per condition that held) and the answer to quote. */
export type MatchResult = { reasons: string[]; quoteAnswer: MatchAnswer | null };

/** Highest NPS score that is a detractor (0–6, Bain's definition). */
export const NPS_DETRACTOR_MAX = 6;

/**
 * A regular expression finding `keyword` as a whole word (or phrase), case-insensitive: not inside
 * a longer word (letters, digits and `_` on either side break the match; "refund" misses "refunded").
 */
export function keywordPattern(keyword: string): RegExp {
  const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, "iu");
}

/** The answers satisfying one condition, and the reason text naming it in `w`'s language. */
function check(c: AlertCondition, answers: MatchAnswer[], themeLabels: ReadonlyMap<string, string>, w: AlertWords): { hits: MatchAnswer[]; reason: string } {
  switch (c.type) {
    case "negative":
      return { hits: answers.filter((a) => a.sentiment === "negative"), reason: w.reason_negative };
    case "actionable":
      return { hits: answers.filter((a) => a.actionable), reason: w.reason_actionable };
    case "nps_detractor": {
      const hits = answers.filter((a) => a.nps !== null && a.nps <= NPS_DETRACTOR_MAX);
      return { hits, reason: hits.length ? fill(w.reason_nps_score, { score: hits[0]!.nps! }) : w.reason_nps };
    }
    case "theme":
      return {
        hits: answers.filter((a) => a.themeUuid === c.theme_uuid),
        reason: fill(w.reason_theme, { label: themeLabels.get(c.theme_uuid) ?? c.theme_uuid }),
      };
    case "keyword": {
      const re = keywordPattern(c.keyword);
      return { hits: answers.filter((a) => a.text !== null && re.test(a.text)), reason: fill(w.reason_keyword, { keyword: c.keyword }) };
    }
  }
}

/**
 * Matches a rule against a response's answers.
 * @param match `any`: at least one condition holds; `all`: every condition holds
 * @param themeLabels theme uuid → label, for the reason text
 * @param words the reasons' language (alerts/catalog.ts; default English)
 * @returns the reasons and the answer to quote (the first hit with text), or null when the rule does not fire
 */
export function matchRule(
  conditions: readonly AlertCondition[],
  match: "any" | "all",
  answers: MatchAnswer[],
  themeLabels: ReadonlyMap<string, string> = new Map(),
  words: AlertWords = alertWordsOf("en"),
): MatchResult | null {
  const results = conditions.map((c) => check(c, answers, themeLabels, words));
  const held = results.filter((r) => r.hits.length > 0);
  if (!held.length || (match === "all" && held.length < results.length)) return null;
  const quoteAnswer = held.flatMap((r) => r.hits).find((a) => a.text) ?? answers.find((a) => a.text) ?? null;
  return { reasons: held.map((r) => r.reason), quoteAnswer };
}
