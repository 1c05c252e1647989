/**
 * @module responses/event-schemas
 * The bodies of the response events Earshot POSTs to webhooks (DESIGN §8; docs/webhooks.md), as
 * zod schemas: the OpenAPI document publishes them (`webhooks`, components `ResponseStartedEvent`
 * …; src/api/), and the producers type each event's `data` by them ({@link ResponseEventData}, the
 * typed {@link queueResponseEvent} in ./events.ts), so a payload cannot drift from what is published
 * without the compiler or webhooks/event-payloads.test.ts noticing. They live with responses (the
 * response record is their content); webhooks knows only that an event has a type and data.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { responseSchema } from "./model.ts";

/**
 * `data.link` of a response event. A link deleted before its response's `response.submitted` was
 * sent (its responses are kept) leaves only its uuid: name and slug are then null.
 */
export const eventLinkSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    name: z.string().nullable().describe("null when the link was deleted before the event was sent"),
    slug: z.string().nullable().describe("null when the link was deleted before the event was sent"),
  }),
);

/** The body of a `response.started` / `response.submitted` delivery (docs/webhooks.md). */
function responseEventSchema<T extends "response.started" | "response.submitted">(type: T) {
  return lazySchema(() =>
    z.object({
      type: z.literal(type),
      timestamp: z.string().describe("When the event happened (ISO 8601, UTC)"),
      data: z.object({
        workspace_uuid: z.string().uuid(),
        link: eventLinkSchema,
        response: responseSchema.describe("The response record of GET responses/{uuid}/; its audio_urls are signed"),
      }),
    }),
  );
}
export const responseStartedEventSchema = responseEventSchema("response.started");
export const responseSubmittedEventSchema = responseEventSchema("response.submitted");

/** Every response event type, with the schema of its body. */
export const RESPONSE_EVENT_SCHEMAS = {
  "response.started": responseStartedEventSchema,
  "response.submitted": responseSubmittedEventSchema,
} as const;

/** A response event type with a published body. */
export type ResponseEventType = keyof typeof RESPONSE_EVENT_SCHEMAS;

/** The `data` of a response event of type `T`, as its producer builds it (what the published schema accepts). */
export type ResponseEventData<T extends ResponseEventType> = z.input<(typeof RESPONSE_EVENT_SCHEMAS)[T]>["data"];
