/**
 * @module stats/model
 * zod schemas of a link's dashboard numbers (issue 11; docs/api.md "Dashboard numbers"):
 * the query and `LinkStats`, the one source for validation, types and the OpenAPI document.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { QUESTION_TYPES } from "../links/question-model.ts";
import { sinceParam, untilParam } from "../responses/model.ts";

export const statsQuerySchema = lazySchema(() =>
  z.object({
    since: sinceParam.optional(),
    until: untilParam.optional(),
    bucket: z.enum(["day", "week"]).default("day").describe("over_time buckets: UTC days, or ISO weeks starting on Monday"),
  }),
);
export type StatsQuery = z.output<typeof statsQuerySchema>;

const sentimentCounts = {
  positive: z.number().int(),
  neutral: z.number().int(),
  negative: z.number().int(),
};

export const linkStatsSchema = lazySchema(() =>
  z
    .object({
      link_uuid: z.string().uuid(),
      since: z.string().nullable().describe("The range's start as given (stored format), or null"),
      until: z.string().nullable().describe("The range's exclusive end (stored format), or null"),
      bucket: z.enum(["day", "week"]),
      responses: z.object({
        started: z.number().int().describe("Responses started in the range (every response starts; completed ones too)"),
        completed: z.number().int().describe("Responses submitted in the range"),
        completion_rate: z.number().min(0).max(1).nullable().describe("Share of the responses started in the range that are completed; null when none started"),
      }),
      over_time: z
        .array(z.object({ date: z.string().describe("First day of the bucket, YYYY-MM-DD (UTC)"), started: z.number().int(), completed: z.number().int() }))
        .describe("Every bucket from the range's (or the data's) first to last, zeros included"),
      questions: z.array(
        z.object({
          question_uuid: z.string().uuid(),
          field_key: z.string(),
          type: z.enum(QUESTION_TYPES),
          prompt: z.string(),
          answered: z.number().int().describe("Completed responses in the range that answered it"),
          distribution: z
            .array(z.object({ value: z.union([z.string(), z.number(), z.boolean()]), label: z.string(), count: z.number().int() }))
            .describe(
              "Choice, image choice, rating, yes/no and number questions: answers per value (every option, card or scale point, zeros included; a multiple-choice answer counts once per option chosen); empty for other types",
            ),
          nps: z
            .object({
              promoters: z.number().int(),
              passives: z.number().int(),
              detractors: z.number().int(),
              score: z.number().int().min(-100).max(100).nullable(),
            })
            .optional()
            .describe("NPS rating questions: promoters 9–10, passives 7–8, detractors 0–6, score = %promoters − %detractors (null without answers)"),
          average: z.number().nullable().optional().describe("Rating and number questions: mean of the answers (null without answers)"),
        }),
      ),
      sentiment: z
        .object({
          ...sentimentCounts,
          over_time: z.array(z.object({ date: z.string(), ...sentimentCounts })).describe("Analysed answers per bucket, by sentiment"),
        })
        .describe("Analysed answers (voice and text) of completed responses in the range, by sentiment"),
      topics: z
        .array(z.object({ topic: z.string(), count: z.number().int().describe("Responses with an answer mentioning it (as the topic= filter counts)") }))
        .describe("The 20 most frequent key topics, lower-cased, most frequent first"),
      latest_actionable: z
        .array(
          z.object({
            response_uuid: z.string().uuid(),
            answer_uuid: z.string().uuid(),
            question_uuid: z.string().uuid(),
            field_key: z.string(),
            text: z.string().describe("Transcript or typed text (up to 500 characters)"),
            summary: z.string().nullable(),
            sentiment: z.enum(["positive", "neutral", "negative"]).nullable(),
            key_topics: z.array(z.string()),
            date: z.string().describe("When the response was submitted"),
          }),
        )
        .describe("The 10 latest actionable answers, newest first"),
    })
    .meta({ title: "LinkStats", description: "A link's dashboard numbers over a date range (UTC)" }),
);
export type LinkStats = z.output<typeof linkStatsSchema>;
