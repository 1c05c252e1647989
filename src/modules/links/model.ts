/**
 * @module links/model
 * zod schemas of links (spec: Feedback link, POST links/; DESIGN §6): create and PATCH bodies,
 * settings with defaults, list query, and the returned link.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { SLUG_PATTERN } from "../../slugs.ts";
import { isBlankText } from "./blank.ts";
import { httpUrl, patchQuestionInputSchema, questionInputSchema, questionSchema } from "./question-model.ts";
import { languageTagSchema, linkTranslationSchema, linkTranslationsSchema } from "./translations.ts";
import { linkRetentionSchema } from "../retention/model.ts";
import { closingSettingsInput, closingSettingsOutput } from "./limits-model.ts";
import { hiddenFieldsInputSchema } from "./hidden-fields.ts";
import { kioskInputSchema, kioskOutputSchema, publicKiosk } from "./kiosk.ts";

export type { KioskSettings } from "./kiosk.ts";

export const DEFAULT_THANK_YOU = "Thanks for your response!";

export const settingsInputSchema = lazySchema(() =>
  z
    .object({
      description: z.string().max(5000).nullable().optional(),
      thankYouMessage: z.string().max(5000).nullable().optional(),
      redirectUrl: httpUrl.nullable().optional(),
      tts_enabled: z.boolean().nullable().optional(),
      live_transcription: z.boolean().nullable().optional(),
      language: languageTagSchema.nullable().optional(),
      redact_pii: z.boolean().nullable().optional().describe("Mask PII in typed answers and transcripts before they are stored (DESIGN §13; default false)"),
      access: z.enum(["open", "invitation"]).nullable().optional().describe('"invitation": starting a response needs an invitation (DESIGN §13)'),

      // Issue 25 (retention): the link's override of the workspace's policy; null clears it.
      retention: linkRetentionSchema.nullable().optional(),
      ...closingSettingsInput,
      hidden_fields: hiddenFieldsInputSchema.nullable().optional(),
      kiosk: kioskInputSchema.nullable().optional().describe('Kiosk mode (issue 29; docs/api.md "Kiosk mode"); null removes it'),
    })
    .strict(),
);
export type SettingsInput = z.output<typeof settingsInputSchema>;

/** Settings as returned: always every key (DESIGN §6; `language` added by issue 17). */
export const settingsSchema = lazySchema(() =>
  z.object({
    description: z.string().nullable(),
    thankYouMessage: z.string(),
    redirectUrl: z.string().nullable(),
    tts_enabled: z.boolean(),
    live_transcription: z.boolean(),
    language: z.string().nullable(),
    redact_pii: z
      .boolean()
      .describe('True: emails, phones, cards, IBANs, names and addresses are masked before storage (docs/privacy.md "Where redaction runs")'),
    access: z.enum(["open", "invitation"]),

    // Only when the link overrides the workspace's retention: a link created as the specification shows keeps its shape.
    retention: linkRetentionSchema.optional(),
    ...closingSettingsOutput,
    hidden_fields: z.array(z.string()).describe("Hidden fields (issue 25); [] when none"),
    kiosk: kioskOutputSchema.nullable().describe("Kiosk mode (issue 29); null when the link has none"),
  }),
);
export type Settings = z.output<typeof settingsSchema>;

/** Fills every settings key: given values over `base` over the defaults. */
export function completeSettings(input: SettingsInput, base?: Settings): Settings {
  const pick = <K extends keyof Settings>(k: K, fallback: Settings[K]): Settings[K] =>
    (input[k] === undefined ? (base?.[k] ?? fallback) : (input[k] ?? fallback)) as Settings[K];
  return {
    description: pick("description", null),
    thankYouMessage: pick("thankYouMessage", DEFAULT_THANK_YOU),
    redirectUrl: pick("redirectUrl", null),
    tts_enabled: pick("tts_enabled", false),
    live_transcription: pick("live_transcription", false),
    language: pick("language", null),
    redact_pii: pick("redact_pii", false),
    access: pick("access", "open"),

    ...retentionOf(input.retention === undefined ? base?.retention : input.retention),
    close_at: pick("close_at", null),
    response_limit: pick("response_limit", null),
    consent: pick("consent", null),
    hidden_fields: pick("hidden_fields", []),
    // Always from the stored form and without the PIN's hash: the service stores `kioskToStore` (links/kiosk.ts).
    kiosk: publicKiosk(base?.kiosk),
  };
}

/** `{retention}` when the override sets any field, else nothing (issue 25). */
function retentionOf(r: Settings["retention"] | null | undefined): Pick<Settings, "retention"> {
  return r && Object.keys(r).length ? { retention: r } : {};
}

const nameSchema = lazySchema(() =>
  z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine((s) => !isBlankText(s), "A link needs a name."),
);
const slugSchema = lazySchema(() => z.string().max(64).regex(SLUG_PATTERN, "Use lowercase letters, digits and single hyphens."));

export const createLinkSchema = lazySchema(() =>
  z
    .object({
      name: nameSchema,
      slug: slugSchema.optional(),
      status: z.enum(["active", "paused"]).default("active"),
      settings: settingsInputSchema.default({}),
      questions: z.array(questionInputSchema).max(200).default([]),
      translations: linkTranslationsSchema.default({}),
      on_finished: z
        .object({
          webhook_url: z.string().max(2048).optional(),
          webhook_secret: z.string().min(1).max(500).optional(),
        })
        .strict()
        .optional(),
    })
    .strict(),
);
export type CreateLinkInput = z.output<typeof createLinkSchema>;

export const patchLinkSchema = lazySchema(() =>
  z
    .object({
      name: nameSchema.optional(),
      slug: slugSchema.optional(),
      status: z.enum(["active", "paused"]).optional(),
      settings: settingsInputSchema.optional(),
      questions: z
        .array(patchQuestionInputSchema)
        .max(200)
        .optional()
        .describe(
          "The whole list: questions left out are removed (their answers keep question_text); one sent with its uuid keeps every member it does not send",
        ),
      translations: linkTranslationsSchema.optional().describe("Replaces the link's translations as a whole ({} removes them)"),
    })
    .strict(),
);
export type PatchLinkInput = z.output<typeof patchLinkSchema>;

export const listLinksQuerySchema = lazySchema(() =>
  z.object({
    ordering: z.enum(["date_created", "-date_created", "name", "-name", "date_updated", "-date_updated"]).default("-date_created"),
    status: z.enum(["active", "paused", "all"]).default("all"),
    search: z.string().max(200).optional(),
  }),
);

export const linkSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    name: z.string(),
    slug: z.string(),
    status: z.enum(["active", "paused"]),
    settings: settingsSchema,
    questions: z.array(questionSchema),
    translations: z.record(z.string(), linkTranslationSchema).describe('The link\'s texts per BCP 47 language (docs/api.md "Translations"); {} when none'),
    response_count: z.number().int(),
    is_closed: z
      .boolean()
      .describe('True once `settings.close_at` passed or `settings.response_limit` responses were submitted (docs/api.md "Closing a link")'),
    closed_reason: z.enum(["close_at", "response_limit"]).nullable().describe("Why the link is closed; null while open"),
    public_url: z.string().url(),
    date_created: z.string(),
    date_updated: z.string(),
  }),
);
export type Link = z.output<typeof linkSchema>;
// The pages may import types from model.ts files only (test/architecture.test.ts): the question types ride along.
export type { Condition, EvaluatorConfig, Question, QuestionType } from "./question-model.ts";
