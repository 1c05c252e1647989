/**
 * @module shared/webhook-events
 * The webhook events a subscription may name (DESIGN §8): the one list the server's schemas and
 * the console's webhook form share (issue 23). Pure data, no imports.
 */

/** Events in the order the console lists them. */
export const WEBHOOK_EVENTS = ["response.started", "response.submitted"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
