/**
 * @module mail/digest
 * The email digest's message (issue 28; docs/console.md "Email digests"): per link with activity
 * in the period, the responses collected (and the previous period's), the completion rate, the NPS
 * when the link asks one, the sentiment and its shift, the top themes with one quote each (new ones
 * marked) and a link to the link's dashboard in the console — as plain text and HTML, every value
 * in the HTML escaped. Words: src/mail/digest-catalog.ts, in the mail catalog's languages;
 * any other falls back to English.
 */
import { RTL } from "./catalog.ts";
import { DIGEST_CATALOG, type DigestWords } from "./digest-catalog.ts";
import type { ComposedMessage } from "./messages.ts";

/** One link's figures in the digest (computed by modules/digests). */
export type DigestLinkData = {
  name: string;
  /** The link's page in the console (absolute URL). */
  url: string;
  responses: number;
  previous_responses: number;
  /** 0..1, or null when no response was started in the period. */
  completion_rate: number | null;
  /** −100..100, or null when the link has no NPS question or it was not answered. */
  nps: number | null;
  sentiment: { positive: number; neutral: number; negative: number };
  /** Net sentiment (positive − negative, % of analysed answers) minus the previous period's; null when either had none. */
  sentiment_shift: number | null;
  themes: { label: string; count: number; is_new: boolean; quote: string | null }[];
};

/** The whole digest: workspace, period (UTC days, inclusive), frequency, and the links with activity. */
export type DigestData = {
  workspace: string;
  frequency: "daily" | "weekly";
  since: string;
  until: string;
  /** The console (absolute URL), for the footer's "change this" line. */
  settingsUrl: string;
  links: DigestLinkData[];
};

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const fill = (t: string, v: Record<string, string | number>) => t.replace(/\{(\w+)\}/g, (whole, k: string) => (k in v ? String(v[k]) : whole));
const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `${n}` : "±0");

/** The figure lines of one link (same words in both parts). */
function figureLines(w: DigestWords, l: DigestLinkData): string[] {
  const lines = [`${w.responses}: ${l.responses} (${w.previous} ${l.previous_responses}, ${signed(l.responses - l.previous_responses)})`];
  if (l.completion_rate !== null) lines.push(`${w.completion}: ${Math.round(l.completion_rate * 100)} %`);
  if (l.nps !== null) lines.push(`${w.nps}: ${signed(l.nps)}`);
  const shift = l.sentiment_shift === null ? "" : ` (${fill(w.shift, { shift: signed(l.sentiment_shift) })})`;
  lines.push(`${fill(w.sentiment, l.sentiment)}${shift}`);
  return lines;
}

/**
 * Builds the digest message.
 * @param lang a language of DIGEST_CATALOG (src/mail/digest-catalog.ts); any other falls back to English
 * @returns subject, plain-text and HTML bodies, and the language used
 */
export function composeDigest(d: DigestData, lang: string): ComposedMessage {
  const used = lang in DIGEST_CATALOG ? lang : "en";
  const w = DIGEST_CATALOG[used]!;
  const v = { workspace: d.workspace, since: d.since, until: d.until };
  const subject = fill(d.frequency === "daily" ? w.subject_daily : w.subject_weekly, v);
  const intro = fill(w.intro, v);
  const text: string[] = [intro, ""];
  const html: string[] = [
    "<!doctype html>",
    `<html lang="${used}" dir="${RTL.has(used) ? "rtl" : "ltr"}"><head><meta charset="utf-8"><title>${esc(subject)}</title></head>`,
    '<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a;max-width:40rem;margin:0 auto;padding:1rem">',
    `<p>${esc(intro)}</p>`,
  ];
  for (const l of d.links) {
    const figures = figureLines(w, l);
    text.push(`## ${l.name}`, ...figures.map((f) => `- ${f}`));
    html.push(`<h2 style="font-size:1.15em;margin-top:1.5em">${esc(l.name)}</h2>`, "<ul>", ...figures.map((f) => `<li>${esc(f)}</li>`), "</ul>");
    if (l.themes.length) {
      text.push("", `${w.themes}:`);
      html.push(`<p><strong>${esc(w.themes)}</strong></p>`, "<ol>");
      for (const t of l.themes) {
        const tag = t.is_new ? ` (${w.new_theme})` : "";
        text.push(`  * ${t.label}${tag}: ${t.count}`, ...(t.quote ? [`    “${t.quote}”`] : []));
        const quote = t.quote ? `<br><q style="color:#444">${esc(t.quote)}</q>` : "";
        html.push(`<li>${esc(t.label)}${esc(tag)}: ${t.count}${quote}</li>`);
      }
      html.push("</ol>");
    }
    text.push("", `${w.open}: ${l.url}`, "");
    html.push(`<p><a href="${esc(l.url)}">${esc(w.open)}</a></p>`);
  }
  text.push("-- ", `${w.settings} ${d.settingsUrl}`, w.footer, "");
  html.push(
    `<hr><p style="font-size:.8em;color:#555">${esc(w.settings)} <a href="${esc(d.settingsUrl)}">${esc(d.settingsUrl)}</a><br>${esc(w.footer)}</p>`,
    "</body></html>",
  );
  return { subject, text: text.join("\n"), html: html.join("\n"), lang: used };
}
