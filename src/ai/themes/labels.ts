/**
 * @module ai/themes/labels
 * Theme labels a person would use: class-based TF-IDF (c-TF-IDF, as BERTopic) over keyphrase
 * candidates that wink-nlp finds in each answer — content words (nouns, adjectives, verbs; by
 * lemma, so "fee" and "fees" count once) and two-word phrases of them ("shipping cost", "promo
 * code", "hold music"). A candidate scores by the share of the theme's answers that use it times
 * how rare it is across all the question's answers, so what every answer says ("checkout",
 * "order") does not name a theme. The label is the best phrase, plus the next best one that
 * shares no word with it: "delivery fee, shipping".
 */
import { parseText, type Token } from "../insights/text.ts";
import { GENERIC_NOUNS } from "../insights/phrases.ts";
import { FILLERS } from "./tokens.ts";

/** Candidates of one answer: key (lemmas) → display text (lowercase surface words) and weight. */
export type Candidates = Map<string, { text: string; weight: number }>;

/** Nouns name what people talk about; adjectives and verbs less often ("handy", "arrived"). */
const POS_WEIGHT: Record<string, number> = { NOUN: 1, PROPN: 1, ADJ: 0.8, VERB: 0.6 };
/** Two-word phrases are what a person would say; they win over one of their words when close. */
const PHRASE_WEIGHT = 1.3;

const CONTENT = new Set(["NOUN", "PROPN", "ADJ", "VERB"]);
const EXTRA_STOP = new Set([
  "get",
  "got",
  "go",
  "went",
  "say",
  "said",
  "make",
  "made",
  "take",
  "took",
  "come",
  "came",
  "want",
  "need",
  "try",
  "tried",
  "use",
  "used",
  "let",
  "keep",
  "give",
  "see",
  "find",
  "put",
  "do",
  "be",
  "have",
  "know",
]);

function isContent(t: Token): boolean {
  return (
    t.type === "word" &&
    CONTENT.has(t.pos) &&
    !t.isStop &&
    t.normal.length >= 3 &&
    !FILLERS.has(t.normal) &&
    !EXTRA_STOP.has(t.lemma) &&
    !GENERIC_NOUNS.has(t.lemma)
  );
}

/** Keyphrase candidates of one answer (wink-nlp pass; about 0.3 ms for a typical answer). */
export function candidatesOf(text: string): Candidates {
  const { tokens } = parseText(text);
  const out: Candidates = new Map();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!isContent(t)) continue;
    if (!out.has(t.lemma)) out.set(t.lemma, { text: t.normal, weight: POS_WEIGHT[t.pos] ?? 0.6 });
    const n = tokens[i + 1];
    // A two-word phrase ends in a noun: "shipping cost", "hidden fees", "promo code".
    if (n && n.sentence === t.sentence && isContent(n) && (n.pos === "NOUN" || n.pos === "PROPN") && t.pos !== "VERB") {
      const key = `${t.lemma} ${n.lemma}`;
      if (!out.has(key)) out.set(key, { text: `${t.normal} ${n.normal}`, weight: PHRASE_WEIGHT });
    }
  }
  return out;
}

/** A scored keyphrase of one theme. */
export interface Keyphrase {
  text: string;
  score: number;
}

/**
 * c-TF-IDF keyphrases of each theme.
 * @param candidates one {@link Candidates} per answer of the question (assigned or not).
 * @param labels each answer's theme index, -1 for unassigned (same length as `candidates`).
 * @param themes number of themes.
 * @returns per theme its keyphrases, best first (at most 8; a phrase needs 2 answers of a theme
 *   of 3 or more, when any phrase has).
 */
export function themeKeyphrases(candidates: Candidates[], labels: ArrayLike<number>, themes: number): Keyphrase[][] {
  const df = new Map<string, number>();
  const perTheme: Map<string, { n: number; weight: number; text: Map<string, number> }>[] = Array.from({ length: themes }, () => new Map());
  const sizes = new Array<number>(themes).fill(0);
  candidates.forEach((c, i) => {
    const k = labels[i]!;
    if (k >= 0) sizes[k]!++;
    for (const [key, { text, weight }] of c) {
      df.set(key, (df.get(key) ?? 0) + 1);
      if (k < 0) continue;
      const entry = perTheme[k]!.get(key) ?? { n: 0, weight, text: new Map<string, number>() };
      entry.n++;
      entry.text.set(text, (entry.text.get(text) ?? 0) + 1);
      perTheme[k]!.set(key, entry);
    }
  });
  const total = candidates.length;
  return perTheme.map((terms, k) => {
    // A phrase needs two answers of the theme, unless no phrase has (tiny or scattered themes).
    const minCount = sizes[k]! >= 3 && [...terms.values()].some((e) => e.n >= 2) ? 2 : 1;
    const scored: Keyphrase[] = [];
    for (const [key, { n, weight, text }] of terms) {
      if (n < minCount) continue;
      const score = (n / sizes[k]!) * Math.log(1 + total / df.get(key)!) * weight;
      const display = [...text].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
      scored.push({ text: display, score });
    }
    // "shipping" the noun and "shipping" the verb are two lemmas but one phrase to a reader.
    const seen = new Set<string>();
    return scored
      .sort((a, b) => b.score - a.score || (a.text < b.text ? -1 : 1))
      .filter((p) => !seen.has(p.text) && seen.add(p.text))
      .slice(0, 8);
  });
}

/** The label of a theme from its keyphrases: the best, plus the next best sharing no word with it. */
export function labelFrom(keyphrases: Keyphrase[]): string {
  const [first, ...rest] = keyphrases;
  if (!first) return "other";
  const words = new Set(first.text.split(" "));
  const second = rest.find(
    (p) => p.score >= 0.5 * first.score && !p.text.split(" ").some((w) => words.has(w) || words.has(w.replace(/s$/, "")) || words.has(`${w}s`)),
  );
  return second ? `${first.text}, ${second.text}` : first.text;
}
