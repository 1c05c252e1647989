/**
 * @module webhooks/event-schemas
 * The body of the event webhooks sends itself, `webhook.test` (DESIGN §8; docs/webhooks.md), as a
 * zod schema the OpenAPI document publishes. The response events' schemas are
 * responses/event-schemas.ts (their content is the response record; webhooks imports no feature
 * above it): {@link queueWebhookEvent} takes any type and data, the typed wrappers live with the producers.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";

export const testEventSchema = lazySchema(() =>
  z.object({
    type: z.literal("webhook.test"),
    timestamp: z.string(),
    data: z.object({ workspace_uuid: z.string().uuid(), webhook_uuid: z.string().uuid(), message: z.string() }),
  }),
);

/** The event types webhooks itself sends, with the schema of its body (response events: responses/event-schemas.ts). */
export const WEBHOOK_EVENT_SCHEMAS = {
  "webhook.test": testEventSchema,
} as const;

/** An event type with a published body. */
export type WebhookEventType = keyof typeof WEBHOOK_EVENT_SCHEMAS;

/** The `data` of an event of type `T`, as its producer builds it (what the published schema accepts). */
export type WebhookEventData<T extends WebhookEventType> = z.input<(typeof WEBHOOK_EVENT_SCHEMAS)[T]>["data"];
