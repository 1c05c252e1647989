/**
 * @module intake/model
 * What the public intake API answers (docs/intake.md), as zod output schemas: the one source of
 * the OpenAPI document's intake bodies (intake/operations.ts), the service's return types and
 * the intake page's types (web/intake/types.ts imports the types only).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { answerSchema } from "../responses/model.ts";

/** A follow-up question of an answer (dynamic probing); `answer` is null until answered. */
export const followUpSchema = lazySchema(() =>
  z.object({ question: z.string(), answer: z.string().nullable(), transcription: z.string().nullable(), has_audio: z.boolean() }),
);
export type FollowUp = z.output<typeof followUpSchema>;

/** One saved answer as the respondent's page sees it (no blob keys, no insights). */
export const answerStateSchema = lazySchema(() =>
  z.object({
    question_uuid: z.string(),
    field_key: z.string(),
    value: z.unknown(),
    text: z.string().nullable(),
    has_audio: z.boolean(),
    duration: z.number().nullable(),
    transcription_status: answerSchema.shape.transcription_status,
    transcription: z.string().nullable(),
    follow_ups: z.array(followUpSchema),
  }),
);
export type AnswerState = z.output<typeof answerStateSchema>;

/** `POST …/probe/`: the answer's clarity and the follow-up to ask, or null. */
export const probeResultSchema = lazySchema(() =>
  z.object({
    clarity: z.number().min(0).max(1).nullable(),
    follow_up: z.object({ index: z.number().int(), question: z.string() }).nullable(),
    follow_ups: z.array(followUpSchema),
  }),
);

/** A respondent session: a `started` response and its answers by question uuid. */
export const sessionSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    response_uuid: z.string(),
    status: z.enum(["started", "completed"]),
    consent: z
      .object({ given_at: z.string(), text_sha256: z.string() })
      .nullable()
      .describe("When the respondent agreed to `settings.consent`, and the SHA-256 (hex) of the text agreed to; null until then"),
    answers: z.record(z.string(), answerStateSchema),
  }),
);
export type IntakeSession = z.output<typeof sessionSchema>;

/** `POST …/sessions/{session_id}/consent/`: what the response now records. */
export const consentGivenSchema = lazySchema(() => z.object({ given_at: z.string(), text_sha256: z.string() }));
