/**
 * @module links/question-model
 * zod schemas of questions (spec: Question, Question types and configuration, Condition object;
 * DESIGN §6): the base fields, one configuration schema per type with its defaults, the
 * condition and the evaluator configuration. One source for validation, types and OpenAPI.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { questionTranslationSchema, questionTranslationsSchema } from "./translations.ts";
import { FIELD_KEY_PATTERN } from "../../slugs.ts";
import { isBlankText } from "./blank.ts";
import { QUESTION_TYPES, type QuestionType } from "../../shared/question-types.ts";

// The list lives in src/shared/ so the intake page and the console use the same one (issue 23).
export { QUESTION_TYPES, type QuestionType };

/** An absolute http(s) URL of at most 2048 characters (card media, a link's redirect): the one `httpUrl`. */
export const httpUrl = lazySchema(() =>
  z
    .string()
    .max(2048)
    .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), "Must be an http(s) URL."),
);

const uniqueStrings = (items: string[]) => new Set(items).size === items.length;

/** Per-type configuration schemas; `.strict()` turns unknown keys into errors. */
export const CONFIGURATION_SCHEMAS = {
  voice: lazySchema(() =>
    z
      .object({
        max_duration: z.number().int().min(1).max(600).default(120),
        enable_ai_evaluation: z.boolean().default(true),
      })
      .strict(),
  ),
  voice_text_fallback: lazySchema(() =>
    z
      .object({
        max_duration: z.number().int().min(1).max(600).default(120),
        max_characters: z.number().int().min(1).max(100_000).default(1000),
      })
      .strict(),
  ),
  text: lazySchema(() => z.object({}).strict()),
  multiple_choice: lazySchema(() =>
    z
      .object({
        options: z.array(z.string().trim().min(1).max(500)).min(1).max(50).refine(uniqueStrings, "Options must be unique."),
        allow_multiple: z.boolean().default(false),
      })
      .strict(),
  ),
  number: lazySchema(() =>
    z
      .object({
        min: z.number().finite().optional(),
        max: z.number().finite().optional(),
        step: z.number().finite().positive().optional(),
      })
      .strict()
      .refine((c) => c.min === undefined || c.max === undefined || c.min <= c.max, {
        message: "min must not exceed max.",
        path: ["min"],
      }),
  ),
  rating: lazySchema(() =>
    z
      .object({
        scale_type: z.enum(["stars", "emojis", "nps", "numbers"]).default("stars"),
        max_value: z.number().int().min(2).max(10).default(5),
      })
      .strict()
      // NPS is always 0..10 (DESIGN §6).
      .transform((c) => (c.scale_type === "nps" ? { ...c, max_value: 10 } : c)),
  ),
  image_choice: lazySchema(() =>
    z
      .object({
        cards: z
          .array(
            z
              .object({
                id: z.string().trim().min(1).max(100),
                label: z.string().trim().min(1).max(200),
                media_url: httpUrl,
                media_type: z.enum(["image", "video"]).default("image"),
              })
              .strict(),
          )
          .min(1)
          .max(24)
          .refine((cards) => uniqueStrings(cards.map((c) => c.id)), "Card ids must be unique."),
      })
      .strict(),
  ),
  email: lazySchema(() => z.object({}).strict()),
  date: lazySchema(() => z.object({}).strict()),
  yes_no: lazySchema(() => z.object({}).strict()),
  file_upload: lazySchema(() =>
    z
      .object({
        allowed_types: z.array(z.string().trim().min(1).max(100)).max(50).default([]),
        max_size_mb: z.number().int().min(1).max(100).default(10),
      })
      .strict(),
  ),
} satisfies Record<QuestionType, z.ZodType>;

export type QuestionConfiguration = z.output<(typeof CONFIGURATION_SCHEMAS)[QuestionType]>;

/**
 * `{}` or all four fields (DESIGN §6). The numeric check of `less_than` sits outside the union so
 * that its message reaches the client (inside, the union would only say "Invalid input").
 */
export const conditionSchema = lazySchema(() =>
  z
    .union([
      z.object({}).strict(),
      z
        .object({
          show_if: z.literal("field_value"),
          field: z.string().regex(FIELD_KEY_PATTERN).max(64),
          operator: z.enum(["less_than", "equals", "contains"]),
          value: z.union([z.number().finite(), z.string().max(1000)]),
        })
        .strict(),
    ])
    .refine((c) => !("operator" in c) || c.operator !== "less_than" || typeof c.value === "number", {
      message: 'less_than needs a numeric value (a number, not a string such as "5").',
      path: ["value"],
    }),
);
export type Condition = z.output<typeof conditionSchema>;

export const evaluatorConfigSchema = lazySchema(() =>
  z
    .object({
      clarity_threshold: z.number().min(0).max(1).optional(),
      max_follow_ups: z.number().int().min(0).max(5).optional(),
      custom_fields: z.array(z.string().regex(FIELD_KEY_PATTERN).max(64)).max(20).optional(),
    })
    .strict(),
);
export type EvaluatorConfig = z.output<typeof evaluatorConfigSchema>;

/** A question as sent on create/PATCH; `configuration` is checked per type afterwards. */
export const questionInputSchema = lazySchema(() =>
  z
    .object({
      uuid: z.string().optional(),
      prompt: z
        .string()
        .trim()
        .min(1, "A question needs a prompt.")
        .max(2000)
        .refine((s) => !isBlankText(s), "A question needs a prompt."),
      type: z.enum(QUESTION_TYPES).default("voice"),
      field_key: z.string().max(64).regex(FIELD_KEY_PATTERN, "Use snake_case starting with a letter.").optional(),
      order: z.number().int().min(0).max(10_000).optional(),
      required: z.boolean().default(false),
      configuration: z.record(z.string(), z.unknown()).default({}),
      condition: conditionSchema.default({}),
      enable_dynamic_probing: z.boolean().default(false),
      fallback_to_text: z.boolean().default(true),
      evaluator_config: evaluatorConfigSchema.default({}),
      translations: questionTranslationsSchema.default({}),
    })
    .strict(),
);
export type QuestionInput = z.output<typeof questionInputSchema>;

/**
 * A question as sent on `PATCH links/{uuid}/` (docs/api.md "Editing questions"): with the `uuid`
 * of an existing question, every member left out keeps its stored value; without one it is a new
 * question and {@link questionInputSchema} (prompt required, defaults) applies to it.
 */
export const patchQuestionInputSchema = lazySchema(() =>
  z
    .object({
      uuid: z.string().optional().describe("An existing question of this link: members left out keep their stored values"),
      prompt: questionInputSchema.shape.prompt.optional(),
      type: z.enum(QUESTION_TYPES).optional().describe("Changing it needs a configuration valid for the new type (the stored one is checked against it)"),
      field_key: questionInputSchema.shape.field_key,
      order: questionInputSchema.shape.order,
      required: z.boolean().optional(),
      configuration: z.record(z.string(), z.unknown()).optional(),
      condition: conditionSchema.optional(),
      enable_dynamic_probing: z.boolean().optional(),
      fallback_to_text: z.boolean().optional(),
      evaluator_config: evaluatorConfigSchema.optional(),
      translations: questionTranslationsSchema.optional(),
    })
    .strict(),
);
export type PatchQuestionInput = z.output<typeof patchQuestionInputSchema>;

/** A question as returned (spec: Question, response-only fields). */
export const questionSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    prompt: z.string(),
    response_type: z.enum(QUESTION_TYPES),
    field_key: z.string(),
    order: z.number().int(),
    required: z.boolean(),
    configuration: z.record(z.string(), z.unknown()),
    condition: z.record(z.string(), z.unknown()),
    enable_dynamic_probing: z.boolean(),
    fallback_to_text: z.boolean(),
    evaluator_config: z.record(z.string(), z.unknown()),
    translations: z.record(z.string(), questionTranslationSchema).describe("The question's texts per BCP 47 language; {} when none"),
    date_created: z.string(),
    date_updated: z.string(),
  }),
);
export type Question = z.output<typeof questionSchema>;
