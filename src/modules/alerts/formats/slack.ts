/**
 * @module alerts/formats/slack
 * Slack incoming webhook (docs.slack.dev "Sending messages using incoming webhooks"): `POST` JSON
 * `{text, blocks}` — `text` is the notification fallback, `blocks` the Block Kit layout. mrkdwn
 * needs `&`, `<` and `>` escaped.
 */
import type { AlertRequest } from "../../../outbox/alert-request.ts";
import { type AlertMessage, defuseMentions, quoteLines, reasonsOf, suppressedNote, titleOf, sentimentText, wordsOf } from "../message.ts";

/** Escapes the three characters Slack's mrkdwn reserves. */
export function slackEscape(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The Slack request for `m`, sent to the incoming-webhook `url`. */
export function slackRequest(m: AlertMessage, url: string): AlertRequest {
  const note = suppressedNote(m);
  const w = wordsOf(m);
  const sentiment = sentimentText(m);
  const blocks: unknown[] = [
    { type: "section", text: { type: "mrkdwn", text: `*${slackEscape(titleOf(m))}*\n${slackEscape(reasonsOf(m))}` } },
    ...(m.quote ? [{ type: "section", text: { type: "mrkdwn", text: quoteLines(slackEscape(defuseMentions(m.quote)), ">") } }] : []),
    {
      type: "context",
      elements: [{ type: "mrkdwn", text: `${sentiment ? `${w.sentiment}: ${slackEscape(sentiment)} · ` : ""}<${m.responseUrl}|${slackEscape(w.open)}>` }],
    },
    ...(note ? [{ type: "context", elements: [{ type: "mrkdwn", text: slackEscape(note) }] }] : []),
  ];
  const text = slackEscape(`${titleOf(m)}: ${reasonsOf(m)}`);
  return { method: "POST", url, headers: { "content-type": "application/json" }, body: JSON.stringify({ text, blocks }), bearer: false };
}
