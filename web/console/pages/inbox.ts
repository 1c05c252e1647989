/**
 * The inbox's data (responses.tsx): the filters the address carries, the API's query made from
 * them, and what a row shows of a response (the answer that sums it up, its sentiment, whether a
 * transcript is still coming).
 */
import type { Answer, ResponseRecord } from "../../../src/modules/responses/model.ts";

/** The filters the address may carry (docs/console.md "Responses"). */
export const FILTER_KEYS = [
  "status",
  "since",
  "until",
  "sentiment",
  "actionable",
  "topic",
  "question",
  "value",
  "search",
  "ordering",
  "link",
  "theme",
  "hidden_field",
  "hidden_value",
] as const;
export type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

/** The answer that best summarises a response in a list: the one in the filtered theme, else a transcript or typed text. */
export function gist(r: ResponseRecord, theme?: string): { text: string; answer: Answer | null } {
  const spoken =
    (theme ? r.answers.find((a) => a.theme?.uuid === theme) : undefined) ??
    r.answers.find((a) => a.transcription) ??
    r.answers.find((a) => a.text && a.response_type !== "email");
  return { text: spoken?.transcription ?? spoken?.text ?? "", answer: spoken ?? null };
}

/** The sentiment of the first analysed answer, or null. */
export function sentimentOf(r: ResponseRecord): string | null {
  const a = r.answers.find((x) => x.ai_insights);
  return a?.ai_insights?.sentiment ?? null;
}

/** What the response's recordings are waiting for, in words; null when nothing. */
export function transcriptState(r: ResponseRecord): string | null {
  const voice = r.answers.filter((a) => a.audio_url);
  if (voice.some((a) => a.transcription_status === "failed")) return "Transcription failed";
  if (voice.some((a) => a.transcription_status === "waiting_for_model")) return "Waiting for the model";
  if (voice.some((a) => a.transcription_status === "pending" || a.transcription_status === "processing")) return "Transcribing…";
  return null;
}

/**
 * The list's query parameters: the filters, less the `link` filter on a link's own inbox; the
 * address keeps the hidden-field filter as two keys, the API takes `hidden.<name>=<value>` (issue 25).
 */
export function apiParamsOf(filters: Filters, linkUuid: string | null): Record<string, string> {
  const apiParams: Record<string, string> = { ...filters };
  if (apiParams.link && linkUuid) delete apiParams.link;
  delete apiParams.hidden_field;
  delete apiParams.hidden_value;
  if (filters.hidden_field && filters.hidden_value) apiParams[`hidden.${filters.hidden_field}`] = filters.hidden_value;
  return apiParams;
}

/** The export's query (without `format`): the list's filters less ordering and link; completed responses unless a status is chosen. */
export function exportParamsOf(apiParams: Record<string, string>): URLSearchParams {
  const q = new URLSearchParams(Object.entries(apiParams).filter(([k, v]) => v && k !== "ordering" && k !== "link") as [string, string][]);
  if (!q.has("status")) q.set("status", "completed");
  return q;
}
