/**
 * @module alerts/message
 * The content every alert carries, whatever its destination (issue 28; docs/alerts.md): the link's
 * name, the rule and why it fired, the sentiment, a short quote of the answer and the response's
 * console URL. Bounded: names to {@link NAME_MAX_CHARS}, the quote to {@link QUOTE_MAX_CHARS}, so
 * a respondent's long answer cannot make a message a destination refuses. The words are in the
 * message's `lang` (alerts/catalog.ts: the rule's language).
 */
import { type AlertWords, alertWordsOf, fill } from "./catalog.ts";

/** Longest quote of the answer in a message (characters; Slack's and ntfy's previews stay readable). */
export const QUOTE_MAX_CHARS = 280;
/** Longest link or rule name in a message (characters). */
export const NAME_MAX_CHARS = 150;

/** What an alert says. */
export type AlertMessage = {
  linkName: string;
  ruleName: string;
  /** One per condition that held, e.g. "Negative sentiment", "Keyword “refund”". */
  reasons: string[];
  /** The quoted answer's sentiment (`negative` …), or null when it has none. */
  sentiment: string | null;
  /** At most {@link QUOTE_MAX_CHARS} characters of the answer, or null (no text answer). */
  quote: string | null;
  /** The response in the operator console. */
  responseUrl: string;
  /** Alerts of this rule dropped by the rate limit since its last message. */
  suppressed: number;
  /** The language of the words around the respondent's (a catalog language of alerts/catalog.ts). */
  lang: string;
};

/** The words of the message's language. */
export function wordsOf(m: AlertMessage): AlertWords {
  return alertWordsOf(m.lang);
}

/** The quoted answer's sentiment in the message's language (`negativ`), or null. */
export function sentimentText(m: AlertMessage): string | null {
  if (!m.sentiment) return null;
  const w = wordsOf(m);
  return m.sentiment === "positive" || m.sentiment === "neutral" || m.sentiment === "negative" ? w[m.sentiment] : m.sentiment;
}

/**
 * Shortens `text` to at most `max` characters, at a word boundary when one is near, with "…";
 * whitespace runs (newlines included) become one space.
 */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if ([...flat].length <= max) return flat;
  const cut = [...flat].slice(0, max - 1).join("");
  const space = cut.lastIndexOf(" ");
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** The one-line title: `Alert “rule” on link` (in the message's language). */
export function titleOf(m: AlertMessage): string {
  return fill(wordsOf(m).title, { rule: clip(m.ruleName, NAME_MAX_CHARS), link: clip(m.linkName, NAME_MAX_CHARS) });
}

/** `Negative sentiment · Keyword “refund”`. */
export function reasonsOf(m: AlertMessage): string {
  return m.reasons.join(" · ");
}

/** The rate-limit note, or null when nothing was dropped. */
export function suppressedNote(m: AlertMessage): string | null {
  if (m.suppressed <= 0) return null;
  const w = wordsOf(m);
  return m.suppressed === 1 ? w.suppressed_one : fill(w.suppressed_other, { count: m.suppressed });
}

/** The message as plain-text lines (Mattermost, Matrix, ntfy build on these). */
export function plainLines(m: AlertMessage): string[] {
  const w = wordsOf(m);
  const sentiment = sentimentText(m);
  return [
    `${w.why}: ${reasonsOf(m)}`,
    ...(sentiment ? [`${w.sentiment}: ${sentiment}`] : []),
    ...(m.quote ? [`“${m.quote}”`] : []),
    `${w.open}: ${m.responseUrl}`,
    ...(suppressedNote(m) ? [suppressedNote(m)!] : []),
  ];
}

/** The sample message of a preview without a response, in `lang`. */
export function sampleMessage(linkName: string, ruleName: string, reasons: string[], responseUrl: string, lang: string): AlertMessage {
  return {
    linkName,
    ruleName,
    reasons,
    sentiment: "negative",
    quote: alertWordsOf(lang).sample_quote,
    responseUrl,
    suppressed: 0,
    lang,
  };
}

/**
 * A respondent's words made inert in a chat: every `@` is followed by a zero-width space, so
 * "@channel", "@here" or "@someone" typed by a respondent notifies nobody (security review,
 * 2026-11-28); the text reads the same.
 */
export function defuseMentions(text: string): string {
  return text.replaceAll("@", "@\u200B");
}

/** Each line of `text` behind `prefix` (a quote stays one quote however many lines it has). */
export function quoteLines(text: string, prefix: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => `${prefix}${line}`)
    .join("\n");
}
