/**
 * @module mail/messages
 * Composes a message (subject, plain text, HTML) from the catalog in the operator's language. The
 * link is the one-time URL itself; every value put into the HTML part is escaped.
 */
import { MAIL_CATALOG, RTL, type MessageKind } from "./catalog.ts";

/** What a message needs: its kind, its language, the link, and the values of its placeholders. */
export type MessageInput = {
  kind: MessageKind;
  /** A catalog language (src/mail/catalog.ts); any other falls back to English. */
  lang: string;
  /** The link the message carries (the one-time URL, or the console for a test). */
  url: string;
  /** `workspace`, `role`, `email`, `actor`; `expires` an ISO timestamp, written as a date in `lang`. */
  values: Record<string, string>;
};

export type ComposedMessage = { subject: string; text: string; html: string; lang: string };

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** `expires` as a long date and time in `lang` (UTC, named, so every reader sees the same instant). */
function localValues(lang: string, values: Record<string, string>): Record<string, string> {
  if (!values.expires) return values;
  const date = new Date(values.expires);
  const expires = Number.isNaN(date.getTime())
    ? values.expires
    : `${new Intl.DateTimeFormat(lang, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(date)} UTC`;
  return { ...values, expires };
}

/**
 * Builds one message.
 * @returns subject, plain-text and HTML bodies, and the language used (`en` when `lang` has no catalog)
 */
export function composeMessage(input: MessageInput): ComposedMessage {
  const lang = input.lang in MAIL_CATALOG ? input.lang : "en";
  const words = MAIL_CATALOG[lang]!;
  const w = words[input.kind];
  const values = localValues(lang, input.values);
  const subject = fill(w.subject, values);
  const intro = fill(w.intro, values);
  const after = fill(w.after, values);
  const text = `${intro}\n\n${w.action}:\n${input.url}\n\n${after}\n\n-- \n${words.footer}\n`;
  const dir = RTL.has(lang) ? "rtl" : "ltr";
  const link = escapeHtml(input.url);
  const html = [
    "<!doctype html>",
    `<html lang="${lang}" dir="${dir}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a;max-width:36rem;margin:0 auto;padding:1rem">',
    `<p>${escapeHtml(intro)}</p>`,
    `<p><a href="${link}" style="display:inline-block;padding:.6rem 1rem;background:#1d4ed8;color:#fff;border-radius:.4rem;text-decoration:none">${escapeHtml(w.action)}</a></p>`,
    `<p style="font-size:.9em;word-break:break-all"><a href="${link}">${link}</a></p>`,
    `<p>${escapeHtml(after)}</p>`,
    `<hr><p style="font-size:.8em;color:#555">${escapeHtml(words.footer)}</p>`,
    "</body></html>",
  ].join("\n");
  return { subject, text, html, lang };
}
