/**
 * @module alerts/formats/mattermost
 * Mattermost incoming webhook (developers.mattermost.com "Incoming webhooks"): `POST` JSON
 * `{text}` in Mattermost Markdown.
 */
import type { AlertRequest } from "../../../outbox/alert-request.ts";
import { type AlertMessage, defuseMentions, quoteLines, reasonsOf, suppressedNote, titleOf } from "../message.ts";

/** Backslash-escapes the Markdown characters that would restyle a respondent's words. */
export function markdownEscape(s: string): string {
  return s.replace(/([\\`*_{}[\]()#+\-!|>~<])/g, "\\$1");
}

/** The Mattermost request for `m`, sent to the incoming-webhook `url`. */
export function mattermostRequest(m: AlertMessage, url: string): AlertRequest {
  const note = suppressedNote(m);
  const lines = [
    `#### ${markdownEscape(titleOf(m))}`,
    `**Why:** ${markdownEscape(reasonsOf(m))}`,
    ...(m.sentiment ? [`**Sentiment:** ${m.sentiment}`] : []),
    ...(m.quote ? [quoteLines(markdownEscape(defuseMentions(m.quote)), "> ")] : []),
    `[Open the response](${m.responseUrl})`,
    ...(note ? [`_${note}_`] : []),
  ];
  return { method: "POST", url, headers: { "content-type": "application/json" }, body: JSON.stringify({ text: lines.join("\n\n") }), bearer: false };
}
