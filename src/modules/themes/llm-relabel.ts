/**
 * @module themes/llm-relabel
 * The rebuild's optional LLM labels (issue 24; docs/insights.md "Themes in the product"): when
 * `EARSHOT_LLM_URL` is configured, each automatic theme a rebuild finds (the largest
 * {@link LLM_LABEL_THEMES}) is named by the LAN model from its keyphrases and answers, and stored
 * with `label_source: "llm"`. A theme whose keyphrases are those of an LLM-labelled theme of the
 * last build keeps that label without a new request (labels stay put across rebuilds). Operator
 * themes are never asked about, and the caller never replaces a pinned label.
 */
import { LLM_LABEL_SAMPLES, LLM_LABEL_THEMES, requestThemeLabels, type LlmEndpoint } from "../../ai/themes/llm-labels.ts";
import type { StoredThemeBuild } from "../../ai/inference-client.ts";
import type { ThemeRow } from "./repository.ts";

export type { LlmEndpoint };

/**
 * LLM labels of a build's automatic themes.
 * @param built the build; `texts` the inputs' texts by input index; `previous` the question's
 *   themes before the build; `question` its prompt.
 * @returns label by the built theme's `key`; themes the endpoint gave no usable label are absent.
 */
export async function llmLabelsOf(
  endpoint: LlmEndpoint,
  question: string | null,
  built: StoredThemeBuild,
  texts: string[],
  previous: Pick<ThemeRow, "label" | "label_source" | "keyphrases">[],
): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  const kept = new Map(previous.filter((t) => t.label_source === "llm").map((t) => [t.keyphrases, t.label]));
  const ask = built.themes.filter((t) => !t.seeded).slice(0, LLM_LABEL_THEMES);
  const toAsk = ask.filter((t) => {
    const label = kept.get(JSON.stringify(t.keyphrases));
    if (label !== undefined) labels.set(t.key, label);
    return label === undefined;
  });
  const answersOf = (t: (typeof ask)[number]) => {
    const quotes = t.quotes.map((q) => q.text);
    const others = t.members.map((i) => texts[i]!).filter((x) => !quotes.some((q) => x.includes(q)));
    return [...quotes, ...others].slice(0, LLM_LABEL_SAMPLES);
  };
  const replies = await requestThemeLabels(
    endpoint,
    question,
    toAsk.map((t) => ({ label: t.label, keyphrases: t.keyphrases, answers: answersOf(t) })),
  );
  toAsk.forEach((t, i) => {
    const label = replies[i];
    if (label) labels.set(t.key, label);
  });
  return labels;
}
