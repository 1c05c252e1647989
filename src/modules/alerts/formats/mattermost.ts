/**
 * @module alerts/formats/mattermost
 * Mattermost incoming webhook (developers.mattermost.com "Incoming webhooks"): `POST` JSON
 * `{text}` in Mattermost Markdown.
 */
import type { AlertRequest } from "../../../outbox/alert-request.ts";
import { type AlertMessage, defuseMentions, quoteLines, reasonsOf, suppressedNote, titleOf, sentimentText, wordsOf } from "../message.ts";

/** Backslash-escapes the Markdown characters that would restyle a respondent's words. */
export function markdownEscape(s: string): string {
  return s.replace(/([\\`*_{}[\]()#+\-!|>~<])/g, "\\$1");
}

/** The Mattermost request for `m`, sent to the incoming-webhook `url`. */
export function mattermostRequest(m: AlertMessage, url: string): AlertRequest {
  const note = suppressedNote(m);
  const w = wordsOf(m);
  const sentiment = sentimentText(m);
  const lines = [
    `#### ${markdownEscape(titleOf(m))}`,
    `**${w.why}:** ${markdownEscape(reasonsOf(m))}`,
    ...(sentiment ? [`**${w.sentiment}:** ${sentiment}`] : []),
    ...(m.quote ? [quoteLines(markdownEscape(defuseMentions(m.quote)), "> ")] : []),
    `[${markdownEscape(w.open)}](${m.responseUrl})`,
    ...(note ? [`_${note}_`] : []),
  ];
  return { method: "POST", url, headers: { "content-type": "application/json" }, body: JSON.stringify({ text: lines.join("\n\n") }), bearer: false };
}
