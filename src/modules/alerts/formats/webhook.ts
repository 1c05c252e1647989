/**
 * @module alerts/formats/webhook
 * A generic JSON destination (any service that takes a JSON `POST`): the alert's fields as they
 * are, `{"type": "alert", "link", "rule", "reasons", "sentiment", "quote", "response_url",
 * "suppressed"}`. Unsigned: a workspace webhook (DESIGN §8) is the signed, full-payload channel.
 */
import type { AlertRequest } from "../../../outbox/alert-request.ts";
import type { AlertMessage } from "../message.ts";

/** The generic JSON request for `m`, sent to `url`. */
export function webhookRequest(m: AlertMessage, url: string): AlertRequest {
  const body = {
    type: "alert",
    link: m.linkName,
    rule: m.ruleName,
    reasons: m.reasons,
    sentiment: m.sentiment,
    quote: m.quote,
    response_url: m.responseUrl,
    suppressed: m.suppressed,
    lang: m.lang,
  };
  return { method: "POST", url, headers: { "content-type": "application/json" }, body: JSON.stringify(body), bearer: false };
}
