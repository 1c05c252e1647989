/**
 * @module alerts/formats/ntfy
 * ntfy (docs.ntfy.sh "Publishing"): `POST` the message as the plain-text body to the topic URL,
 * with `Title`, `Tags` (emoji short codes) and `Click` (the URL opened on tap) headers. A title
 * that is not ASCII is sent as an RFC 2047 encoded word, which ntfy decodes. A topic protected by an
 * access token (docs.ntfy.sh "Access tokens") gets `Authorization: Bearer tk_…`: the rule's token is
 * its outbox target's secret, added at send time (outbox/alert-request.ts), never stored in the event.
 */
import type { AlertRequest } from "../../../outbox/alert-request.ts";
import { type AlertMessage, plainLines, titleOf } from "../message.ts";

/** `s` as a header value: itself when printable ASCII, else `=?UTF-8?B?…?=`. */
export function headerText(s: string): string {
  return /^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, "utf8").toString("base64")}?=`;
}

/**
 * The ntfy request for `m`, sent to the topic `url` (`https://ntfy.example.org/support-alerts`).
 * @param bearer the topic needs the rule's access token (`Authorization: Bearer`)
 */
export function ntfyRequest(m: AlertMessage, url: string, bearer = false): AlertRequest {
  const tags = ["rotating_light", ...(m.sentiment === "negative" ? ["thumbsdown"] : [])];
  const headers = {
    "content-type": "text/plain; charset=utf-8",
    title: headerText(titleOf(m)),
    tags: tags.join(","),
    click: m.responseUrl,
  };
  return { method: "POST", url, headers, body: plainLines(m).join("\n"), bearer };
}
