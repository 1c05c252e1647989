/**
 * @module webhooks/model
 * zod schemas of webhook management (DESIGN §8; spec: Webhooks): create and PATCH bodies, the
 * deliveries list query, and the returned webhook and delivery records.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { WEBHOOK_EVENTS, type WebhookEvent } from "../../shared/webhook-events.ts";

// Events a webhook can subscribe to (spec: Events): the list lives in src/shared/ so the console uses the same one (issue 23).
export { WEBHOOK_EVENTS, type WebhookEvent };
/** The event `POST …/test/` sends; not subscribable. */
export const TEST_EVENT = "webhook.test" as const;

/** True for an absolute https URL without credentials (spec: Limits, "Webhook url must be HTTPS"). */
export function isHttpsUrl(v: string): boolean {
  if (!URL.canParse(v)) return false;
  const u = new URL(v);
  return u.protocol === "https:" && u.hostname.length > 0 && !u.username && !u.password;
}

const urlSchema = lazySchema(() => z.string().max(2048).refine(isHttpsUrl, "Must be an absolute https URL."));
const eventsSchema = lazySchema(() =>
  z
    .array(z.enum(WEBHOOK_EVENTS))
    .min(1, "Subscribe to at least one event.")
    .transform((events) => [...new Set(events)]),
);

export const createWebhookSchema = lazySchema(() =>
  z
    .object({
      url: urlSchema,
      events: eventsSchema,
      enabled: z.boolean().default(true),
      /** Only this link's events; omitted or null: every link of the workspace. */
      link_uuid: z.string().uuid().nullable().optional(),
    })
    .strict(),
);
export type CreateWebhookInput = z.output<typeof createWebhookSchema>;

export const patchWebhookSchema = lazySchema(() =>
  z
    .object({
      url: urlSchema.optional(),
      events: eventsSchema.optional(),
      enabled: z.boolean().optional(),
    })
    .strict(),
);
export type PatchWebhookInput = z.output<typeof patchWebhookSchema>;

export const DELIVERY_STATES = ["pending", "delivering", "succeeded", "failed"] as const;
export const listDeliveriesQuerySchema = lazySchema(() =>
  z.object({
    state: z.enum(DELIVERY_STATES).optional(),
  }),
);

/** The webhook record (DESIGN §8). */
export const webhookSchema = lazySchema(() =>
  z.object({
    uuid: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    enabled: z.boolean(),
    /** Set for the webhook a link's `on_finished` created: only that link's events. */
    link_uuid: z.string().nullable(),
    /** Why the webhook was disabled (410, failing too long, or by the API); null while enabled. */
    disabled_reason: z.string().nullable(),
    date_created: z.string(),
    date_updated: z.string(),
    last_delivery_at: z.string().nullable(),
    /** HTTP status of the last attempt; null when it got no response or none was made. */
    last_delivery_status: z.number().int().nullable(),
  }),
);
export type Webhook = z.output<typeof webhookSchema>;

/** Create and rotate-secret answers: the record plus the secret, shown only here. */
export const webhookWithSecretSchema = lazySchema(() =>
  webhookSchema.extend({
    secret: z.string(),
    /** Until when the previous secret also signs (rotate-secret only). */
    previous_secret_expires_at: z.string().nullable().optional(),
  }),
);

/** One line of the delivery log (DESIGN §8). */
export const deliverySchema = lazySchema(() =>
  z.object({
    uuid: z.string(),
    /** The event's `webhook-id`, identical on every attempt and redelivery. */
    event_id: z.string(),
    event_type: z.enum([...WEBHOOK_EVENTS, TEST_EVENT]),
    state: z.enum(DELIVERY_STATES),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    /** First 4 KiB of the last response body. */
    response_excerpt: z.string().nullable(),
    /** Duration of the last attempt in milliseconds. */
    duration_ms: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    date_created: z.string(),
    date_updated: z.string(),
  }),
);
export type Delivery = z.output<typeof deliverySchema>;

export const attemptSchema = lazySchema(() =>
  z.object({
    attempt: z.number().int(),
    status_code: z.number().int().nullable(),
    response_excerpt: z.string().nullable(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    date_created: z.string(),
  }),
);
/** `GET …/deliveries/{uuid}/`: the delivery and each of its attempts. */
export const deliveryDetailSchema = lazySchema(() => deliverySchema.extend({ attempt_log: z.array(attemptSchema) }));
export type DeliveryDetail = z.output<typeof deliveryDetailSchema>;
