/**
 * @module responses/model
 * zod schemas of the response list queries (DESIGN §7).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { correctedMarkerSchema } from "../insights/model.ts";
import { formatMicros } from "../../clock.ts";
import { QUESTION_TYPES } from "../links/question-model.ts";

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;
const DATE_MESSAGE = "Use a date (2026-01-31) or a date-time with a zone (2026-01-31T12:00:00Z).";

/** Milliseconds of a `since`/`until` value, or NaN. Dates are UTC days. */
function dateMs(v: string): number {
  return DATE_ONLY.test(v) ? Date.parse(`${v}T00:00:00Z`) : DATE_TIME.test(v) ? Date.parse(v) : Number.NaN;
}

/** `since`: inclusive lower bound, as a stored timestamp (`YYYY-MM-DDTHH:MM:SS.ffffffZ`). */
export const sinceParam = lazySchema(() =>
  z
    .string()
    .max(40)
    .refine((v) => Number.isFinite(dateMs(v)), DATE_MESSAGE)
    .transform((v) => formatMicros(BigInt(dateMs(v)) * 1000n))
    .describe("Responses submitted (started, for status=started) at or after this date (UTC day) or date-time"),
);

/** `until`: inclusive upper bound — a whole UTC day for a date — as an exclusive stored timestamp. */
export const untilParam = lazySchema(() =>
  z
    .string()
    .max(40)
    .refine((v) => Number.isFinite(dateMs(v)), DATE_MESSAGE)
    .transform((v) => formatMicros(BigInt(dateMs(v)) * 1000n + (DATE_ONLY.test(v) ? 86_400_000_000n : 1000n)))
    .describe("Responses submitted (started, for status=started) up to this date (the whole UTC day) or date-time, inclusive"),
);

const booleanParam = lazySchema(() => z.enum(["true", "false"]).transform((v) => v === "true"));
const numberParam = lazySchema(() =>
  z
    .string()
    .regex(/^-?\d{1,15}(\.\d{1,9})?$/, "Expected a number.")
    .transform(Number),
);

/**
 * Filters of the response lists and the export (issue 11; docs/api.md "Filtering responses").
 * Every given filter must hold (AND). `question` picks a question by uuid or `field_key`; with
 * `value` / `value_min` / `value_max` its answer must match (see `docs/api.md`), alone it must be
 * answered.
 */
export const responseFilterSchema = lazySchema(() =>
  z.object({
    status: z.enum(["completed", "started", "all"]).default("completed"),
    search: z
      .string()
      .max(200)
      .optional()
      .describe(
        "Words in the respondent email, typed answers, transcripts, follow-up answers or hidden-field values (case-insensitive, prefix match). Filter on one hidden field with hidden.<name>=<value> (exact match)",
      ),
    since: sinceParam.optional(),
    until: untilParam.optional(),
    sentiment: z.enum(["positive", "neutral", "negative"]).optional().describe("An answer of the response has this sentiment"),
    actionable: booleanParam.optional().describe("true: an answer is actionable; false: none is"),
    topic: z.string().trim().min(1).max(100).optional().describe("An answer's key_topics contains this topic (case-insensitive)"),
    question: z.string().max(64).optional().describe("Question uuid or field_key the value filters apply to"),
    value: z
      .string()
      .max(500)
      .optional()
      .describe(
        "Choice: an option (or card id) chosen; rating/number: equal; yes_no: true|false|yes|no; date: equal; text/voice/email: contained (case-insensitive)",
      ),
    value_min: numberParam.optional().describe("Rating/number answers at least this value"),
    value_max: numberParam.optional().describe("Rating/number answers at most this value"),
    theme: z.string().uuid().optional().describe("An answer of the response belongs to this theme (DESIGN §12)"),
  }),
);
/** The filters, with the `hidden.<name>` parameters read apart (responses/hidden-filter.ts). */
export type ResponseFilterQuery = z.output<typeof responseFilterSchema> & { hidden?: Record<string, string> };

export const listResponsesQuerySchema = lazySchema(() =>
  responseFilterSchema.extend({
    ordering: z.enum(["submitted_at", "-submitted_at", "date_created", "-date_created"]).default("-submitted_at"),
    link: z.string().max(64).optional(),
  }),
);
export type ListResponsesQuery = z.output<typeof listResponsesQuerySchema>;

/** The export takes the list's filters (status defaults to all) and a format. */
export const exportQuerySchema = lazySchema(() =>
  responseFilterSchema.extend({
    format: z.enum(["csv", "jsonl"]).default("csv"),
    status: z.enum(["completed", "started", "all"]).default("all"),
  }),
);

/** `GET responses/export/`: the workspace-wide export, optionally limited to one link. */
export const workspaceExportQuerySchema = lazySchema(() =>
  exportQuerySchema.extend({
    link: z.string().uuid().optional(),
  }),
);

export const answerSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    question_uuid: z.string().uuid(),
    field_key: z.string(),
    response_type: z.enum(QUESTION_TYPES),
    question_text: z.string(),
    value: z.unknown().describe("Typed value: string, number, boolean, string[], object or null"),
    text: z.string().nullable(),
    audio_url: z.string().nullable(),
    audio_deleted_at: z
      .string()
      .nullable()
      .optional()
      .describe('When retention dropped the recording (audio_url is then null; the transcript stays; docs/privacy.md "Retention")'),
    transcription: z.string().nullable(),
    transcription_status: z
      .enum(["pending", "processing", "waiting_for_model", "completed", "failed", "not_applicable"])
      .describe("waiting_for_model: the ASR model is not installed; transcription_error says so and the answer resumes once it is"),
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
      .describe("Engines that produced ai_insights, e.g. sentiment 'transformer:<model>', 'trained:linear-v2' or 'lexicon:vader'"),
    analysis_status: z
      .enum(["pending", "completed", "failed", "not_applicable", "unsupported_language"])
      .describe("unsupported_language: no installed insights engine knows the answer's language, so ai_insights is null"),
    language: z
      .string()
      .nullable()
      .describe(
        "The answer's language: the ISO 639-1 code Whisper transcribed in (the link's language, or detected), the link's BCP 47 tag for typed answers; null when unknown",
      ),
    follow_ups: z.array(
      z.object({
        question: z.string(),
        answer: z.string().nullable(),
        audio_url: z.string().nullable().optional(),
        transcription: z.string().nullable().optional(),
      }),
    ),
    custom_fields: z.record(z.string(), z.unknown()),
    theme: z
      .object({ uuid: z.string().uuid(), label: z.string() })
      .nullable()
      .describe("The answer's theme (open questions; DESIGN §12), or null when unassigned or not themed"),
    segments: z
      .array(z.object({ start_s: z.number(), end_s: z.number(), text: z.string() }))
      .nullable()
      .describe(
        "Voice answers: Whisper's transcript segments with their place in the recording, seconds; one segment for the whole recording when the model gave no timestamps; null otherwise",
      ),
    translation: z
      .string()
      .nullable()
      .describe(
        "Voice answers in another language than English, transcribed by a multilingual Whisper model: Whisper's own English translation (its translate task), which insights and themes are computed from; `transcription` stays what was said. Null otherwise",
      ),
    rating_details: z.object({ value: z.number().nullable(), max_value: z.number(), scale_type: z.enum(["stars", "emojis", "nps", "numbers"]) }).optional(),
    selected_card: z
      .object({ card_id: z.string(), label: z.string(), media_url: z.string(), media_type: z.enum(["image", "video"]) })
      .nullable()
      .optional(),
    file: z.object({ name: z.string(), size: z.number(), content_type: z.string(), url: z.string() }).nullable().optional(),
  }),
);

export const responseSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    link_uuid: z.string().uuid(),
    session_id: z.string(),
    status: z.enum(["started", "completed"]),
    respondent_email: z.string().nullable(),
    date_created: z.string(),
    submitted_at: z.string().nullable(),
    consent: z
      .object({ given_at: z.string(), text_sha256: z.string() })
      .nullable()
      .describe("The respondent's consent to the link's `settings.consent` (issue 25): when, and the SHA-256 (hex) of the text agreed to; null when none"),
    hidden: z.record(z.string(), z.string()).describe("The hidden-field values the intake URL carried (settings.hidden_fields; issue 25); {} when none"),
    answers: z.array(answerSchema),
  }),
);
/** One answer of a response as returned (the console reads it as this type). */
export type Answer = z.output<typeof answerSchema>;
/** A response as returned (`GET responses/{uuid}/`, list items): the console reads it as this type. */
export type ResponseRecord = z.output<typeof responseSchema>;

/** `POST responses/{uuid}/reprocess/`: the answers queued again (issue 12). */
export const reprocessedSchema = lazySchema(() =>
  z.object({
    response_uuid: z.string().uuid(),
    queued: z
      .array(z.object({ answer_uuid: z.string().uuid(), job: z.enum(["transcribe", "analyse"]) }))
      .describe("Answers whose transcription failed or waits for the model, or whose analysis failed; empty when none (or their job is running)"),
  }),
);
