/**
 * @module alerts/formats/email
 * An alert as an email (issue 28; docs/alerts.md "Email"): the same content as the chat formats —
 * title (rule and link), why it fired, sentiment, the bounded quote, the console link and the
 * rate-limit note — as a subject, a plain-text part and an HTML part. The respondent's words are
 * HTML-escaped, so a quote cannot add links or markup. The recipients are stored as a `mailto:`
 * URI (RFC 6068), the rule's `destination_url`.
 */
import type { ComposedMessage } from "../../../mail/messages.ts";
import { RTL } from "../../../mail/catalog.ts";
import { type AlertMessage, plainLines, reasonsOf, sentimentText, suppressedNote, titleOf, wordsOf } from "../message.ts";
import { htmlEscape } from "./matrix.ts";

/** The recipients as a `mailto:` URI (`mailto:a@example.com,b@example.com`), addresses as given. */
export function mailtoOf(to: readonly string[]): string {
  return `mailto:${to.map((a) => encodeURIComponent(a).replaceAll("%40", "@")).join(",")}`;
}

/** The recipients of a `mailto:` URI written by {@link mailtoOf}. */
export function recipientsOf(mailto: string): string[] {
  return mailto
    .replace(/^mailto:/, "")
    .split(",")
    .filter(Boolean)
    .map((a) => decodeURIComponent(a));
}

/** The email for `m`: subject = the title; in the message's language (the rule's), as every alert format. */
export function emailMessage(m: AlertMessage): ComposedMessage {
  const w = wordsOf(m);
  const subject = titleOf(m);
  const text = `${subject}\n\n${plainLines(m).join("\n")}\n\n-- \n${w.email_footer}\n`;
  const note = suppressedNote(m);
  const sentiment = sentimentText(m);
  const html = [
    `<!doctype html><html lang="${m.lang}" dir="${RTL.has(m.lang) ? "rtl" : "ltr"}"><head><meta charset="utf-8"><title>${htmlEscape(subject)}</title></head>`,
    '<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">',
    `<h1 style="font-size:1.2em">${htmlEscape(subject)}</h1>`,
    `<p><strong>${htmlEscape(w.why)}:</strong> ${htmlEscape(reasonsOf(m))}</p>`,
    ...(sentiment ? [`<p><strong>${htmlEscape(w.sentiment)}:</strong> ${htmlEscape(sentiment)}</p>`] : []),
    ...(m.quote ? [`<blockquote style="border-left:3px solid #999;margin:0;padding-left:1em">${htmlEscape(m.quote)}</blockquote>`] : []),
    `<p><a href="${htmlEscape(m.responseUrl)}">${htmlEscape(w.open)}</a></p>`,
    ...(note ? [`<p><em>${htmlEscape(note)}</em></p>`] : []),
    `<hr><p style="font-size:.8em;color:#555">${htmlEscape(w.email_footer)}</p>`,
    "</body></html>",
  ].join("\n");
  return { subject, text, html, lang: m.lang };
}
