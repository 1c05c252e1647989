/**
 * @module api/openapi-components
 * What the OpenAPI document adds to the feature zod schemas, without changing how requests are
 * validated: the component names generated clients see (`Link`, `Question`, `Response`, …), the
 * question as a union on its type (built from `CONFIGURATION_SCHEMAS`, the schemas that validate
 * `configuration`), the webhook event payloads, and the formats of well-known field names.
 */
import type { z } from "zod";
import { QUESTION_TYPES } from "../modules/links/question-model.ts";
import {
  configurationObject,
  publicLinkSchema,
  publicQuestionSchema,
  publicQuestionVariants,
  questionDocSchema,
  questionVariants,
} from "../modules/links/question-doc.ts";
import { completeSettings, linkSchema, settingsSchema } from "../modules/links/model.ts";
import { answerSchema, reprocessedSchema, responseSchema } from "../modules/responses/model.ts";
import { eventLinkSchema, responseStartedEventSchema, responseSubmittedEventSchema } from "../modules/responses/event-schemas.ts";
import { testEventSchema } from "../modules/webhooks/event-schemas.ts";
import { attemptSchema, deliveryDetailSchema, deliverySchema, webhookSchema, webhookWithSecretSchema } from "../modules/webhooks/model.ts";
import { createdTokenSchema, tokenSchema } from "../modules/tokens/model.ts";
import { workspaceSchema } from "../modules/workspaces/model.ts";
import { inviteSchema, memberSchema, sessionSchema } from "../modules/users/model.ts";
import { linkStatsSchema } from "../modules/stats/model.ts";
import { correctedInsightsSchema } from "../modules/insights/model.ts";
import { summarySchema, themeSchema, themeStatusSchema } from "../modules/themes/model.ts";

/** `FooBar` from `foo_bar`. */
const pascal = (s: string) => s.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

let componentNames: ReadonlyArray<readonly [z.ZodType, string]> | null = null;
/** Component names, in document order (built at the first call). Page envelopes of these get `<Name>Page`. */
export const namedComponents = (): ReadonlyArray<readonly [z.ZodType, string]> =>
  (componentNames ??= [
    [linkSchema, "Link"],
    [settingsSchema, "Settings"],
    [questionDocSchema, "Question"],
    ...questionVariants.map((v, i) => [v, `${pascal(QUESTION_TYPES[i]!)}Question`] as const),
    ...QUESTION_TYPES.map((t) => [configurationObject(t), `${pascal(t)}Configuration`] as const),
    [publicLinkSchema, "PublicLink"],
    [publicQuestionSchema, "PublicQuestion"],
    ...publicQuestionVariants.map((v, i) => [v, `Public${pascal(QUESTION_TYPES[i]!)}Question`] as const),
    [responseSchema, "Response"],
    [answerSchema, "Answer"],
    [reprocessedSchema, "Reprocessed"],
    [correctedInsightsSchema, "CorrectedInsights"],
    [themeSchema, "Theme"],
    [themeStatusSchema, "ThemeStatus"],
    [summarySchema, "LinkSummary"],
    [webhookSchema, "Webhook"],
    [webhookWithSecretSchema, "WebhookWithSecret"],
    [deliverySchema, "Delivery"],
    [deliveryDetailSchema, "DeliveryDetail"],
    [attemptSchema, "DeliveryAttempt"],
    [tokenSchema, "Token"],
    [createdTokenSchema, "CreatedToken"],
    [workspaceSchema, "Workspace"],
    [memberSchema, "Member"],
    [inviteSchema, "Invite"],
    [sessionSchema, "Session"],
    [linkStatsSchema, "LinkStats"],
    [eventLinkSchema, "EventLink"],
    [responseStartedEventSchema, "ResponseStartedEvent"],
    [responseSubmittedEventSchema, "ResponseSubmittedEvent"],
    [testEventSchema, "WebhookTestEvent"],
  ]);

const DATE_TIME_FIELDS = new Set([
  "date_created",
  "date_updated",
  "submitted_at",
  "last_used_at",
  "last_login_at",
  "expires_at",
  "last_delivery_at",
  "next_attempt_at",
  "previous_secret_expires_at",
  "timestamp",
  "at",
]);
// Not media_url: a selected_card whose card was since removed carries "" (responses/service.ts).
const URI_FIELDS = new Set(["public_url", "audio_url", "next", "previous", "url", "redirectUrl", "redirect_url"]);
const UUID_FIELDS = /^(uuid|[a-z_]+_uuid)$/;

/** The string branch of a property schema (`{type: "string"}` or the string of a nullable anyOf). */
function stringBranch(s: Record<string, unknown>): Record<string, unknown> | null {
  if ((s.type === "string" || (Array.isArray(s.type) && s.type.includes("string"))) && !s.enum && !s.const) return s;
  const anyOf = s.anyOf as Record<string, unknown>[] | undefined;
  if (anyOf?.length === 2 && anyOf.some((b) => b.type === "null")) return anyOf.find((b) => b.type === "string" && !b.enum) ?? null;
  return null;
}

/**
 * Adds `format` to properties by their name, everywhere in a JSON schema (in place): timestamps
 * are `date-time`, `*_uuid` are `uuid`, URLs are `uri`. The output-schema checks of the API tests
 * hold the server to these formats.
 * Only for output schemas: request fields keep their own validation (and its messages).
 */
export function addFieldFormats(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) addFieldFormats(n);
    return;
  }
  if (!node || typeof node !== "object") return;
  const obj = node as Record<string, unknown>;
  const props = obj.properties as Record<string, Record<string, unknown>> | undefined;
  if (props && typeof props === "object") {
    for (const [name, schema] of Object.entries(props)) {
      const s = stringBranch(schema);
      if (!s || s.format) continue;
      if (DATE_TIME_FIELDS.has(name)) s.format = "date-time";
      else if (UUID_FIELDS.test(name)) s.format = "uuid";
      else if (URI_FIELDS.has(name)) s.format = "uri";
    }
  }
  for (const v of Object.values(obj)) addFieldFormats(v);
}

/** Puts the settings defaults (from `completeSettings`, the code that applies them) on a settings object schema (in place). */
export function addSettingsDefaults(json: Record<string, unknown>): void {
  const props = json.properties as Record<string, Record<string, unknown>> | undefined;
  if (props) for (const [k, v] of Object.entries(completeSettings({}))) if (props[k]) props[k].default = v;
}

/**
 * Fills in what zod cannot say on its own (in place, on `components.schemas`): the settings
 * defaults (from `completeSettings`, the code that applies them) and the question union's
 * `discriminator`.
 */
export function annotateComponents(schemas: Record<string, Record<string, any>>): void {
  if (schemas.Settings) addSettingsDefaults(schemas.Settings);
  for (const prefix of ["", "Public"]) {
    const union = schemas[`${prefix}Question`];
    if (union)
      union.discriminator = {
        propertyName: "response_type",
        mapping: Object.fromEntries(QUESTION_TYPES.map((t) => [t, `#/components/schemas/${prefix}${pascal(t)}Question`])),
      };
  }
}
