/**
 * @module ai/insights-languages
 * Which answer languages the installed insights engines can label (issue 17, docs/insights.md
 * "Languages"). The embedded trained engine, the lexicon and the English transformer know English
 * only; a multilingual sentiment model, when it is the configured `EARSHOT_SENTIMENT_MODEL` and
 * its files are installed, adds the languages it was fine-tuned on. An answer in any other
 * language gets no insights (`analysis_status: "unsupported_language"`) rather than English labels
 * on German text. Checked by the inference worker before it runs the engine.
 */
import { existsSync } from "node:fs";
import path from "node:path";

/** Multilingual sentiment models Earshot knows, with the languages they were fine-tuned on. */
export const MULTILINGUAL_SENTIMENT_MODELS: Readonly<Record<string, readonly string[]>> = {
  // XLM-T (Barbieri et al. 2022): fine-tuned on tweets in eight languages.
  "Xenova/twitter-xlm-roberta-base-sentiment": ["ar", "en", "fr", "de", "hi", "it", "es", "pt"],
};

/**
 * Whether an installed engine can label text in `language` (a BCP 47 tag; null = unknown,
 * treated as English, as before languages were tracked).
 * @param modelsDir the models directory; `sentimentModel` a folder under it
 */
export function insightsSupportLanguage(modelsDir: string, sentimentModel: string, language: string | null | undefined): boolean {
  const primary = (language ?? "en").split("-")[0]!.toLowerCase();
  if (primary === "en") return true;
  const languages = MULTILINGUAL_SENTIMENT_MODELS[sentimentModel];
  return languages !== undefined && languages.includes(primary) && existsSync(path.join(modelsDir, sentimentModel, "config.json"));
}
