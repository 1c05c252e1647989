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
import { hiddenFieldsInputSchema } from "./hidden-fields.ts";

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
      hidden_fields: hiddenFieldsInputSchema.nullable().optional(),
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
    hidden_fields: z.array(z.string()).describe("Hidden fields (issue 25); [] when none"),
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
    hidden_fields: pick("hidden_fields", []),
  };
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
    public_url: z.string().url(),
    date_created: z.string(),
    date_updated: z.string(),
  }),
);
export type Link = z.output<typeof linkSchema>;
