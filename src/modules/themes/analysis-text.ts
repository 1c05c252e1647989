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
  return [own, ...followUpAnswersOf(a).map((f) => f.text)].join("\n");
}

/**
 * The answered follow-ups of an answer (issue 24: each gets its own vector and may be a theme's
 * quote; docs/insights.md "Follow-up answers").
 * @returns `{ index, text }` per follow-up with a non-empty answer; `index` is its place in `follow_ups`.
 */
export function followUpAnswersOf(a: Pick<AnalysedAnswer, "follow_ups">): { index: number; text: string }[] {
  return (JSON.parse(a.follow_ups) as { answer?: string | null }[]).flatMap((f, index) => {
    const text = (f.answer ?? "").trim();
    return text ? [{ index, text }] : [];
  });
}
