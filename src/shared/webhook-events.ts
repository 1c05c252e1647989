/**
 * @module shared/webhook-events
 * The webhook event types (DESIGN §8; spec "Events"): one list, read by the server's webhook model
 * and the console's subscription form. Neutral code (no imports).
 */

/** Events a webhook can subscribe to. */
export const WEBHOOK_EVENTS = ["response.started", "response.submitted"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The event `POST …/test/` sends to one webhook; not subscribable. */
export const TEST_EVENT = "webhook.test" as const;
