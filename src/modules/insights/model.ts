/**
 * @module insights/model
 * zod schemas of the insights-correction endpoint (docs/insights.md "Corrections"): the PATCH
 * body, the `corrected` marker added to an answer's `ai_insights`, and the reply.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";

const sentiment = lazySchema(() => z.enum(["positive", "neutral", "negative"]));

/** PATCH body: at least one of the two labels. */
export const correctInsightsSchema = lazySchema(() =>
  z
    .strictObject({
      sentiment: sentiment.optional().describe("Corrected sentiment"),
      actionable: z.boolean().optional().describe("Corrected actionable flag"),
      theme_uuid: z
        .string()
        .uuid()
        .nullable()
        .optional()
        .describe("Move the answer to this theme of its question (null: unassigned); kept across rebuilds (DESIGN §12)"),
    })
    .refine((b) => b.sentiment !== undefined || b.actionable !== undefined || b.theme_uuid !== undefined, {
      message: "Give sentiment, actionable, theme_uuid or several.",
    }),
);

/** The `corrected` marker on a corrected answer's `ai_insights`. */
export const correctedMarkerSchema = lazySchema(() =>
  z.object({
    by: z.object({ type: z.enum(["key", "user"]), uuid: z.string(), name: z.string() }).describe("Who made the latest correction"),
    at: z.string().describe("When (ISO 8601, UTC)"),
    original: z.object({ sentiment, actionable: z.boolean() }).describe("The engine's values before any correction"),
  }),
);

/** The reply: the answer's insights as they now read. */
export const correctedInsightsSchema = lazySchema(() =>
  z.object({
    answer_uuid: z.string(),
    ai_insights: z
      .object({
        sentiment,
        sentiment_score: z.number().min(-1).max(1).describe("The engine's score (not corrected)"),
        actionable: z.boolean(),
        key_topics: z.array(z.string()),
        summary: z.string(),
        corrected: correctedMarkerSchema.optional().describe("Present once sentiment or actionable was corrected"),
      })
      .nullable(),
    theme: z
      .object({ uuid: z.string().uuid(), label: z.string() })
      .nullable()
      .optional()
      .describe("The answer's theme as it now reads (present when theme_uuid was sent)"),
  }),
);

export type CorrectInsightsBody = z.output<typeof correctInsightsSchema>;
export type CorrectedInsights = z.output<typeof correctedInsightsSchema>;
