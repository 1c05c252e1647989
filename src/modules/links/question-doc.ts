/**
 * @module links/question-doc
 * The question as the OpenAPI document shows it, without changing how requests are validated:
 * a union on its type (built from `CONFIGURATION_SCHEMAS`, the schemas that validate
 * `configuration`), returned, sent (`POST links/`) and public (the intake API's `PublicLink`).
 * Documentation only; src/api/openapi-components.ts names them, intake/operations.ts uses `publicLinkSchema`.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { CONFIGURATION_SCHEMAS, QUESTION_TYPES, questionInputSchema, questionSchema, type QuestionType } from "./question-model.ts";
import { linkSchema } from "./model.ts";

/** The configuration schema of a type as an object schema (the rating one is a pipe: NPS forces max_value 10). */
export function configurationObject(type: QuestionType): z.ZodType {
  const s = CONFIGURATION_SCHEMAS[type] as z.ZodType;
  return s instanceof z.ZodPipe ? (s.in as z.ZodType) : s;
}

/** Returned question of one type: `response_type` fixed, `configuration` that type's schema. */
export const questionVariants = QUESTION_TYPES.map((t) =>
  lazySchema(() => questionSchema.extend({ response_type: z.literal(t), configuration: configurationObject(t) })),
);

/** A returned question: one variant per `response_type` (documentation only). */
export const questionDocSchema = lazySchema(() => z.discriminatedUnion("response_type", questionVariants as never));

/** A question as the public intake API shows it: the returned question without its evaluator configuration and dates. */
export const publicQuestionVariants = questionVariants.map((v) => lazySchema(() => v.omit({ evaluator_config: true, date_created: true, date_updated: true })));
export const publicQuestionSchema = lazySchema(() => z.discriminatedUnion("response_type", publicQuestionVariants as never));

/** `GET intake/{workspace_slug}/{link_slug}/`: the link as the intake page needs it (intake/service.ts `toPublicLink`). */
export const publicLinkSchema = lazySchema(() =>
  linkSchema
    .pick({ uuid: true, name: true, status: true, is_closed: true, closed_reason: true, settings: true, translations: true })
    .extend({ questions: z.array(publicQuestionSchema) }),
);

/**
 * A question as sent on `POST links/`: one variant per `type`, each with its configuration
 * (documentation only: requests are still validated by `questionInputSchema` then the type's
 * configuration schema). `type` may be left out for a voice question (the default).
 */
const questionInputVariants = QUESTION_TYPES.map((t) =>
  lazySchema(() =>
    questionInputSchema.extend({
      type: t === "voice" ? z.literal(t).default(t) : z.literal(t),
      configuration: configurationObject(t).default({} as never),
    }),
  ),
);
export const questionInputDocSchema = lazySchema(() => z.union(questionInputVariants as never));
