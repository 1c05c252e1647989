/**
 * @module alerts/formats/teams
 * Microsoft Teams (a Workflows "Post to a channel when a webhook request is received" URL, or a
 * legacy incoming webhook): `POST` a message whose one attachment is an Adaptive Card
 * (`application/vnd.microsoft.card.adaptive`, card version 1.4, which both accept).
 */
import type { AlertRequest } from "../../../outbox/alert-request.ts";
import { type AlertMessage, defuseMentions, reasonsOf, suppressedNote, titleOf, sentimentText, wordsOf } from "../message.ts";

/**
 * A respondent's words in a TextBlock, whose Markdown subset renders `[text](url)` as a link: a
 * zero-width space between `]` and `(` keeps a respondent from planting a link that reads as ours.
 */
export function teamsText(s: string): string {
  return defuseMentions(s).replaceAll("](", "]\u200B(");
}

/** The Teams request for `m`, sent to the workflow or incoming-webhook `url`. */
export function teamsRequest(m: AlertMessage, url: string): AlertRequest {
  const note = suppressedNote(m);
  const w = wordsOf(m);
  const sentiment = sentimentText(m);
  const facts = [{ title: w.why, value: reasonsOf(m) }, ...(sentiment ? [{ title: w.sentiment, value: sentiment }] : [])];
  const card = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    body: [
      { type: "TextBlock", text: titleOf(m), weight: "Bolder", size: "Medium", wrap: true },
      { type: "FactSet", facts },
      ...(m.quote ? [{ type: "TextBlock", text: `“${teamsText(m.quote)}”`, wrap: true, isSubtle: true }] : []),
      ...(note ? [{ type: "TextBlock", text: note, wrap: true, size: "Small" }] : []),
    ],
    actions: [{ type: "Action.OpenUrl", title: w.open, url: m.responseUrl }],
  };
  const body = { type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }] };
  return { method: "POST", url, headers: { "content-type": "application/json" }, body: JSON.stringify(body), bearer: false };
}
