/**
 * @module responses/model
 * zod schemas of the response list queries (DESIGN §7).
 */
import { z } from "zod";
import { correctedMarkerSchema } from "../insights/model.ts";

export const listResponsesQuerySchema = z.object({
  ordering: z.enum(["submitted_at", "-submitted_at", "date_created", "-date_created"]).default("-submitted_at"),
  search: z.string().max(200).optional(),
  status: z.enum(["completed", "started", "all"]).default("completed"),
  link: z.string().max(64).optional(),
});
export type ListResponsesQuery = z.output<typeof listResponsesQuerySchema>;

export const exportQuerySchema = z.object({ format: z.enum(["csv", "jsonl"]).default("csv") });

export const answerSchema = z.object({
  uuid: z.string().uuid(),
  question_uuid: z.string().uuid(),
  field_key: z.string(),
  response_type: z.string(),
  question_text: z.string(),
  value: z.unknown().describe("Typed value: string, number, boolean, string[], object or null"),
  text: z.string().nullable(),
  audio_url: z.string().nullable(),
  transcription: z.string().nullable(),
  transcription_status: z.enum(["pending", "processing", "completed", "failed", "not_applicable"]),
  transcription_error: z.string().nullable(),
  duration: z.number().nullable().describe("Seconds"),
  ai_insights: z
    .object({
      sentiment: z.enum(["positive", "neutral", "negative"]),
      sentiment_score: z.number().min(-1).max(1),
      actionable: z.boolean(),
      key_topics: z.array(z.string()),
      summary: z.string(),
      corrected: correctedMarkerSchema.optional().describe("Present when an operator corrected sentiment or actionable (PATCH …/insights/)"),
    })
    .nullable(),
  analysis_engine: z
    .object({ sentiment: z.string(), text: z.string(), llm: z.boolean(), clarity: z.number().min(0).max(1) })
    .partial()
    .nullable()
    .describe("Engines that produced ai_insights, e.g. sentiment 'transformer:<model>', 'trained:linear-v1' or 'lexicon:vader'"),
  follow_ups: z.array(z.object({ question: z.string(), answer: z.string().nullable(), audio_url: z.string().nullable().optional(), transcription: z.string().nullable().optional() })),
  custom_fields: z.record(z.string(), z.unknown()),
  rating_details: z.object({ value: z.number().nullable(), max_value: z.number(), scale_type: z.string() }).optional(),
  selected_card: z.object({ card_id: z.string(), label: z.string(), media_url: z.string(), media_type: z.string() }).nullable().optional(),
  file: z.object({ name: z.string(), size: z.number(), content_type: z.string(), url: z.string() }).nullable().optional(),
});

export const responseSchema = z.object({
  uuid: z.string().uuid(),
  link_uuid: z.string().uuid(),
  session_id: z.string(),
  status: z.enum(["started", "completed"]),
  respondent_email: z.string().nullable(),
  date_created: z.string(),
  submitted_at: z.string().nullable(),
  answers: z.array(answerSchema),
});
