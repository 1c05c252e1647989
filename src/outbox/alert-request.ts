/**
 * @module outbox/alert-request
 * The outbox side of alert messages (issue 28; DESIGN §15; docs/alerts.md): an `alert.message`
 * event stores the exact request its destination receives — method, URL, headers and body, built
 * by src/modules/alerts/formats/ when the alert fired — so every retry sends the same bytes (Matrix
 * uses the event id as its transaction id, so a retry is idempotent there). A bearer token is not
 * stored in the event: the request says `bearer: true` and the token is the outbox target's
 * `secret` (the rule's `webhooks` row), read at send time.
 */
import type { ClaimedDelivery } from "./repository.ts";

/** The event type of an alert message. */
export const ALERT_EVENT_TYPE = "alert.message";

/** What an alert event's `data.request` holds. */
export type AlertRequest = {
  method: "POST" | "PUT";
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Send `Authorization: Bearer <the target's secret>` (Matrix). */
  bearer: boolean;
};

/**
 * The request of an alert delivery, or null for any other event (and for an erased alert, whose
 * payload is a stub: its deliveries were ended by the erasure anyway).
 * @returns url, method, headers (with the bearer token when asked) and body
 */
export function alertRequestOf(d: ClaimedDelivery): { url: string; method: "POST" | "PUT"; headers: Record<string, string>; body: string } | null {
  if (d.eventType !== ALERT_EVENT_TYPE) return null;
  const request = (JSON.parse(d.body) as { data?: { request?: AlertRequest } }).data?.request;
  if (!request) return null;
  const headers = { ...request.headers, ...(request.bearer ? { authorization: `Bearer ${d.secret}` } : {}) };
  return { url: request.url, method: request.method, headers, body: request.body };
}
