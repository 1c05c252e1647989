/**
 * @module alerts/model
 * zod schemas of alert rules (issue 28; DESIGN §15; docs/alerts.md): the conditions a rule fires
 * on, its destination, the create/PATCH bodies, the returned record and the preview request.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { isHttpsUrl } from "../webhooks/model.ts";
import { ALERT_LANGUAGES } from "./catalog.ts";

/** The destinations an alert can go to (one format file each under formats/). */
export const DESTINATION_KINDS = ["slack", "teams", "mattermost", "matrix", "ntfy", "webhook", "email"] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** Longest keyword a rule may look for (characters). */
export const MAX_KEYWORD_LENGTH = 100;
/** Default and largest number of messages one rule sends per hour. */
export const DEFAULT_MAX_PER_HOUR = 10;
export const MAX_MAX_PER_HOUR = 1000;
/** Most recipients of an email rule (one message goes to all of them). */
export const MAX_EMAIL_RECIPIENTS = 10;

export const conditionSchema = lazySchema(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("negative") }).strict(),
    z.object({ type: z.literal("actionable") }).strict(),
    z.object({ type: z.literal("nps_detractor") }).strict(),
    z.object({ type: z.literal("theme"), theme_uuid: z.string().uuid() }).strict(),
    z
      .object({
        type: z.literal("keyword"),
        keyword: z.string().trim().min(1).max(MAX_KEYWORD_LENGTH),
      })
      .strict(),
  ]),
);
/** One condition of a rule. */
export type AlertCondition = z.output<typeof conditionSchema>;

const destinationSchema = lazySchema(() =>
  z
    .object({
      kind: z.enum(DESTINATION_KINDS),
      /** The incoming-webhook URL; for Matrix the homeserver's base URL; for ntfy the topic URL. Not for email. */
      url: z.string().max(2048).refine(isHttpsUrl, "Must be an absolute https URL.").optional(),
      /** Email only: the recipients (1–10 addresses; one message goes to all). */
      to: z.array(z.string().trim().max(254).email()).min(1).max(MAX_EMAIL_RECIPIENTS).optional(),
      /** Matrix only: the room id (`!abc:example.org`). */
      room: z
        .string()
        .min(3)
        .max(255)
        .regex(/^![^\s:]+:\S+$/, "A Matrix room id (!id:server); the send API takes no alias.")
        .optional(),
      /**
       * Matrix: the access token of the bot account (required); ntfy: the access token of a
       * protected topic (`tk_…`, optional). Sent as `Authorization: Bearer`; write-only: never returned.
       */
      token: z.string().min(1).max(1024).optional(),
    })
    .strict()
    .superRefine((d, ctx) => {
      if (d.kind === "matrix" && (!d.room || !d.token))
        ctx.addIssue({ code: "custom", path: [d.room ? "token" : "room"], message: "Matrix needs room and token." });
      if (d.kind !== "matrix" && d.room) ctx.addIssue({ code: "custom", path: ["room"], message: "Only Matrix takes room." });
      if (d.kind !== "matrix" && d.kind !== "ntfy" && d.token) ctx.addIssue({ code: "custom", path: ["token"], message: "Only Matrix and ntfy take token." });
      if (d.kind === "email" && !d.to) ctx.addIssue({ code: "custom", path: ["to"], message: "Email needs to: 1–10 addresses." });
      if (d.kind === "email" && d.url !== undefined) ctx.addIssue({ code: "custom", path: ["url"], message: "Email takes to, not url." });
      if (d.kind !== "email" && d.to) ctx.addIssue({ code: "custom", path: ["to"], message: "Only email takes to." });
      if (d.kind !== "email" && d.url === undefined) ctx.addIssue({ code: "custom", path: ["url"], message: "Required." });
    }),
);
export type DestinationInput = z.output<typeof destinationSchema>;

export const createAlertSchema = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1).max(200),
      conditions: z.array(conditionSchema).min(1, "Give at least one condition.").max(10),
      /** Fire when `any` condition matches (default) or only when `all` do. */
      match: z.enum(["any", "all"]).default("any"),
      destination: destinationSchema,
      max_per_hour: z.number().int().min(1).max(MAX_MAX_PER_HOUR).default(DEFAULT_MAX_PER_HOUR),
      enabled: z.boolean().default(true),
      /** The messages' language (a mail language); left out, the request's Accept-Language (else English). */
      lang: z.enum(ALERT_LANGUAGES).optional(),
    })
    .strict(),
);
export type CreateAlertInput = z.output<typeof createAlertSchema>;

export const patchAlertSchema = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1).max(200).optional(),
      conditions: z.array(conditionSchema).min(1).max(10).optional(),
      match: z.enum(["any", "all"]).optional(),
      destination: destinationSchema.optional(),
      max_per_hour: z.number().int().min(1).max(MAX_MAX_PER_HOUR).optional(),
      enabled: z.boolean().optional(),
      lang: z.enum(ALERT_LANGUAGES).optional(),
    })
    .strict(),
);
export type PatchAlertInput = z.output<typeof patchAlertSchema>;

/** `POST …/alerts/preview/`: a rule (saved, by uuid, or as a create body) and a response (or a sample). */
export const previewAlertSchema = lazySchema(() =>
  z
    .object({
      alert_uuid: z.string().uuid().optional(),
      rule: createAlertSchema.optional(),
      /** A response of the link; left out, a sample answer is used. */
      response_uuid: z.string().uuid().optional(),
    })
    .strict()
    .refine((p) => (p.alert_uuid ? !p.rule : !!p.rule), { message: "Give either alert_uuid or rule.", path: ["rule"] }),
);
export type PreviewAlertInput = z.output<typeof previewAlertSchema>;

/** The alert rule record. */
export const alertSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    link_uuid: z.string().uuid(),
    name: z.string(),
    conditions: z.array(conditionSchema),
    match: z.enum(["any", "all"]),
    destination: z.object({
      kind: z.enum(DESTINATION_KINDS),
      url: z.string().describe("The destination URL; for email the recipients as a mailto: URI (RFC 6068)"),
      room: z.string().nullable(),
      has_token: z.boolean().describe("Whether an access token is set (Matrix always; ntfy when the topic is protected)"),
      to: z.array(z.string()).nullable().describe("Email only: the recipients, else null"),
    }),
    max_per_hour: z.number().int(),
    enabled: z.boolean(),
    lang: z.string().describe("The language of the rule's messages (a mail language: en, de, fr, es, it, nl, pt, pl, ar)"),
    disabled_reason: z.string().nullable().describe("Why the destination stopped receiving (410 Gone, failing too long), or null"),
    suppressed: z.number().int().describe("Alerts dropped by the rate limit since the last message sent"),
    last_delivery_at: z.string().nullable(),
    last_delivery_status: z.number().int().nullable(),
    date_created: z.string(),
    date_updated: z.string(),
  }),
);
export type Alert = z.output<typeof alertSchema>;

/** What each destination would receive (`POST …/alerts/preview/`). */
export const previewSchema = lazySchema(() =>
  z.object({
    kind: z.enum(DESTINATION_KINDS),
    method: z.enum(["POST", "PUT", "SMTP"]).describe("SMTP for email: `url` is then the recipients' mailto: URI, `body` the plain text"),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().describe("The exact body bytes (UTF-8)"),
    message: z.object({ reasons: z.array(z.string()), sentiment: z.string().nullable(), quote: z.string().nullable(), response_url: z.string() }),
    email: z
      .object({ to: z.array(z.string()), subject: z.string(), text: z.string(), html: z.string() })
      .nullable()
      .describe("Email only: the message queued for the recipients, else null"),
  }),
);
