/**
 * @module alerts/formats/matrix
 * Matrix client-server API (spec v1.x, "PUT /_matrix/client/v3/rooms/{roomId}/send/{eventType}/{txnId}"):
 * an `m.room.message` event of msgtype `m.notice` (the msgtype for automated senders) with a
 * plain `body` and an HTML `formatted_body`, sent with the bot's access token as a bearer token.
 * The transaction id is the outbox event id, so a retry of the same alert is deduplicated by the
 * homeserver.
 */
import type { AlertRequest } from "../../../outbox/alert-request.ts";
import { type AlertMessage, plainLines, reasonsOf, suppressedNote, titleOf, sentimentText, wordsOf, defuseMentions } from "../message.ts";

/** Escapes text for HTML. */
export function htmlEscape(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/**
 * The Matrix request for `m`.
 * @param homeserver the homeserver's base URL (`https://matrix.example.org`)
 * @param room the room id (`!abc:example.org`)
 * @param txnId the transaction id (the alert's outbox event id)
 */
export function matrixRequest(m: AlertMessage, homeserver: string, room: string, txnId: string): AlertRequest {
  // A respondent's "@room" or "@someone" notifies nobody (besides `m.mentions: {}` below, for older clients).
  m = { ...m, quote: m.quote === null ? null : defuseMentions(m.quote) };
  const base = homeserver.replace(/\/+$/, "");
  const url = `${base}/_matrix/client/v3/rooms/${encodeURIComponent(room)}/send/m.room.message/${encodeURIComponent(txnId)}`;
  const note = suppressedNote(m);
  const w = wordsOf(m);
  const sentiment = sentimentText(m);
  const html = [
    `<p><strong>${htmlEscape(titleOf(m))}</strong><br>${htmlEscape(reasonsOf(m))}</p>`,
    ...(sentiment ? [`<p>${htmlEscape(w.sentiment)}: ${htmlEscape(sentiment)}</p>`] : []),
    ...(m.quote ? [`<blockquote>${htmlEscape(m.quote)}</blockquote>`] : []),
    `<p><a href="${htmlEscape(m.responseUrl)}">${htmlEscape(w.open)}</a></p>`,
    ...(note ? [`<p><em>${htmlEscape(note)}</em></p>`] : []),
  ].join("");
  // `m.mentions: {}` (intentional mentions): the message mentions nobody, whatever "@room" a respondent typed.
  const content = {
    msgtype: "m.notice",
    body: [titleOf(m), ...plainLines(m)].join("\n"),
    format: "org.matrix.custom.html",
    formatted_body: html,
    "m.mentions": {},
  };
  return { method: "PUT", url, headers: { "content-type": "application/json" }, body: JSON.stringify(content), bearer: true };
}
