/**
 * @module links/limits-model
 * The closing and consent settings of a link (issue 25, DESIGN §13, docs/api.md "Closing a link"
 * and "Consent"): `close_at`, `response_limit` and `consent`, as accepted and as returned, and
 * whether a link is closed at a given time. Kept apart from links/model.ts so the settings schema
 * there only spreads these members in.
 */
import { z } from "zod";
import { formatMicros } from "../../clock.ts";

/** The largest `response_limit` accepted (a bound, not a plan quota). */
export const MAX_RESPONSE_LIMIT = 10_000_000;
/** The longest consent text, in characters (a page of terms, not a document). */
export const MAX_CONSENT_CHARS = 5000;

/** An ISO 8601 timestamp with a zone (`Z` or `±hh:mm`), normalised to the API's UTC format (DESIGN §4). */
const timestampInput = z
  .string()
  .max(40)
  .refine((v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(v) && Number.isFinite(Date.parse(v)), {
    message: "Must be an ISO 8601 timestamp with a time zone, such as 2026-12-31T23:59:59Z.",
  })
  .transform((v) => formatMicros(BigInt(Date.parse(v)) * 1000n));

export const consentInputSchema = z
  .object({
    text: z.string().trim().min(1).max(MAX_CONSENT_CHARS).describe("What the respondent agrees to; translatable (`translations.<lang>.consent`)"),
    required_before: z
      .enum(["recording", "start"])
      .default("recording")
      .describe("`recording`: before the microphone is asked for (typed answers need no consent); `start`: before the session starts"),
  })
  .strict();

/** The members `settings` accepts for closing and consent (all optional; null removes one). */
export const closingSettingsInput = {
  close_at: timestampInput.nullable().optional().describe("From this time on the link takes no new sessions (409 LINK_CLOSED)"),
  response_limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_RESPONSE_LIMIT)
    .nullable()
    .optional()
    .describe("Once this many responses are submitted, the link takes no new sessions; sessions already started may still submit"),
  consent: consentInputSchema.nullable().optional(),
};

/** The same members as returned: always present, null when unset. */
export const closingSettingsOutput = {
  close_at: z.string().nullable(),
  response_limit: z.number().int().nullable(),
  consent: z.object({ text: z.string(), required_before: z.enum(["recording", "start"]) }).nullable(),
};

export type ConsentSettings = { text: string; required_before: "recording" | "start" };
export type ClosedReason = "close_at" | "response_limit";

/**
 * Why a link takes no new sessions at `nowIso`, or null while it does (paused is `status`, not this).
 * @param settings the link's stored settings (members may be absent on links stored before issue 25)
 * @param submitted the link's submitted (completed) responses
 * @param nowIso the clock's current API timestamp (same format as `close_at`, so they compare as strings)
 */
export function closedReasonOf(settings: { close_at?: string | null; response_limit?: number | null }, submitted: number, nowIso: string): ClosedReason | null {
  if (settings.close_at && settings.close_at <= nowIso) return "close_at";
  if (settings.response_limit != null && submitted >= settings.response_limit) return "response_limit";
  return null;
}
