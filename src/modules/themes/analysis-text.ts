/**
 * @module themes/analysis-text
 * The text the English engines read of an answer (issue 24): its English `translation` when
 * Whisper made one (a non-English voice answer), else its transcript or typed text, followed by
 * the answers to its follow-ups. Insights and the theme vector come from this one text, and a
 * theme rebuild embeds it again when the themes engine changed.
 */

/** What the text is made of: the answer row's columns. */
export type AnalysedAnswer = { text: string | null; transcription: string | null; translation?: string | null; follow_ups: string };

/**
 * The analysed text of an answer, "" when it has none.
 * @param a the answer's `text`, `transcription`, `translation` and `follow_ups` (JSON).
 */
export function analysisTextOf(a: AnalysedAnswer): string {
  const own = (a.translation || a.transcription || a.text || "").trim();
  if (own === "") return "";
  // Follow-up answers given during the session count as part of the answer.
  const followUps = (JSON.parse(a.follow_ups) as { answer?: string | null }[]).map((f) => f.answer).filter(Boolean);
  return [own, ...followUps].join("\n");
}
