/**
 * @module themes/model
 * zod schemas of the themes API (DESIGN §12; docs/api.md "Themes"): queries, bodies, the theme
 * record, the build status and the "what changed" summary.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";

const uuid = () => z.string().uuid();
const label = () => z.string().trim().min(1, "A label is needed.").max(120);
const description = () => z.string().trim().max(1000);
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `GET …/themes/` query (besides page and page_size). */
export const listThemesQuerySchema = lazySchema(() => z.object({ question: uuid().optional().describe("Only the themes of this question (uuid)") }));

/** `POST …/themes/`: an operator's theme. */
export const createThemeSchema = lazySchema(() =>
  z.strictObject({
    question_uuid: uuid().describe("The open question (voice, voice_text_fallback, text) the theme belongs to"),
    label: label(),
    description: description().nullable().optional(),
    examples: z
      .array(uuid())
      .max(50)
      .optional()
      .describe("Answers of that question that belong to the theme; answers near them are assigned to it at the next build"),
  }),
);
export type CreateThemeBody = z.output<typeof createThemeSchema>;

/** `PATCH …/themes/{uuid}/`. A new label pins it unless `pinned: false` is sent with it. */
export const patchThemeSchema = lazySchema(() =>
  z
    .strictObject({
      label: label().optional(),
      description: description().nullable().optional(),
      pinned: z.boolean().optional().describe("true: the label survives rebuilds"),
    })
    .refine((b) => b.label !== undefined || b.description !== undefined || b.pinned !== undefined, { message: "Give label, description or pinned." }),
);
export type PatchThemeBody = z.output<typeof patchThemeSchema>;

/** `POST …/themes/{uuid}/merge/`. */
export const mergeThemeSchema = lazySchema(() => z.strictObject({ into: uuid().describe("The theme that survives (same question)") }));

const dateParam = () =>
  z
    .string()
    .regex(DATE_ONLY, "Use a date such as 2026-01-31.")
    .refine((v) => Number.isFinite(Date.parse(`${v}T00:00:00Z`)), "Use a date such as 2026-01-31.");

/** `GET …/summary/` query: whole UTC days, `until` inclusive. */
export const summaryQuerySchema = lazySchema(() =>
  z.object({
    since: dateParam().optional().describe("First day of the period (UTC); default 6 days before `until`"),
    until: dateParam().optional().describe("Last day of the period, inclusive (UTC); default today"),
  }),
);
export type SummaryQuery = z.output<typeof summaryQuerySchema>;

const sentimentCounts = () => z.object({ positive: z.number().int(), neutral: z.number().int(), negative: z.number().int() });

export const themeQuoteSchema = lazySchema(() =>
  z.object({
    answer_uuid: uuid(),
    response_uuid: uuid(),
    text: z.string().describe("A sentence of the answer close to the theme's centre"),
    start_s: z.number().nullable().describe("Voice answers: where the quoted words start in the recording, seconds; null for typed answers"),
    end_s: z.number().nullable().describe("Voice answers: where they end, seconds"),
    audio_url: z.string().nullable().describe("Voice answers: the signed recording URL with a media fragment `#t=start,end`, so a player plays just the quote"),
  }),
);

export type ThemeQuote = z.output<typeof themeQuoteSchema>;

export const themeSchema = lazySchema(() =>
  z.object({
    uuid: uuid(),
    question_uuid: uuid(),
    label: z.string(),
    label_source: z.enum(["auto", "operator", "llm"]),
    description: z.string().nullable(),
    pinned: z.boolean().describe("An operator's label that survives rebuilds"),
    keyphrases: z.array(z.string()).describe("The phrases the label was chosen from (class-based TF-IDF)"),
    size: z.number().int().describe("Answers assigned"),
    share: z.number().min(0).max(1).describe("Of the question's analysed answers"),
    sentiment: sentimentCounts(),
    actionable: z.number().int(),
    first_seen: z.string().nullable(),
    last_seen: z.string().nullable(),
    weekly: z.array(z.object({ week_start: z.string().describe("Monday of the ISO week, YYYY-MM-DD (UTC)"), count: z.number().int() })),
    quotes: z.array(themeQuoteSchema).describe("2–3 representative quotes"),
    date_created: z.string(),
    date_updated: z.string(),
  }),
);
export type ThemeRecord = z.output<typeof themeSchema>;

export const themeListSchema = lazySchema(() =>
  z.object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(themeSchema) }),
);

export const themeStatusSchema = lazySchema(() =>
  z.object({
    state: z.enum(["ready", "building"]),
    answers_total: z.number().int().describe("Answers with text to the link's open questions"),
    answers_assigned: z.number().int(),
    answers_pending: z.number().int().describe("Not analysed yet"),
    built_at: z.string().nullable().describe("When the last build finished (the latest of the link's questions)"),
  }),
);
export type ThemeStatus = z.output<typeof themeStatusSchema>;

const period = () => z.object({ since: z.string().describe("YYYY-MM-DD"), until: z.string().describe("YYYY-MM-DD, inclusive") });

export const summarySchema = lazySchema(() =>
  z.object({
    period: period(),
    previous: period(),
    responses: z.object({ count: z.number().int(), previous_count: z.number().int() }),
    sentiment: sentimentCounts().extend({ previous: sentimentCounts() }),
    themes: z.array(
      z.object({
        uuid: uuid(),
        label: z.string(),
        count: z.number().int(),
        previous_count: z.number().int(),
        quote: themeQuoteSchema.nullable(),
      }),
    ),
    new_themes: z.array(uuid()).describe("Themes whose first answer falls in the period"),
    markdown: z.string().describe("The same as Markdown (the email digest)"),
  }),
);
export type Summary = z.output<typeof summarySchema>;

export const messageSchema = lazySchema(() => z.object({ message: z.string() }));
