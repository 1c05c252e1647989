/**
 * @module ai/insights/types
 * Shapes of the insights engine's input and output (DESIGN §7: `ai_insights`, `follow_ups`,
 * `custom_fields`; DESIGN §9: evaluator config and dynamic probing).
 */

/** Sentiment label of an answer. */
export type Sentiment = "positive" | "neutral" | "negative";

/** A label and a score in −1 (most negative) .. 1 (most positive). */
export interface SentimentResult {
  sentiment: Sentiment;
  score: number;
}

/** The `ai_insights` object stored on an answer (DESIGN §7). */
export interface AiInsights {
  sentiment: Sentiment;
  /** −1..1 */
  sentiment_score: number;
  actionable: boolean;
  /** Lowercase, deduplicated, at most 5. */
  key_topics: string[];
  /** Extractive, at most two sentences. */
  summary: string;
}

/** A custom field's extracted value; null when the answer does not say. */
export type CustomFieldValue = string | number | boolean | null;

/** Which engines produced a result. */
export interface EngineInfo {
  /** `"transformer:<model id>"`, `"trained:<model id>"` (e.g. "trained:linear-v2") or `"lexicon:vader"`. */
  sentiment: string;
  /** Local text analysis engine, `"wink-nlp:wink-eng-lite-web-model"`. */
  text: string;
  /** True when the LLM endpoint answered and its answer was used. */
  llm: boolean;
}

/** Everything `analyse` returns for one answer. */
export interface AnalysisResult {
  ai_insights: AiInsights;
  /** 0 (vague) .. 1 (clear and specific). */
  clarity: number;
  follow_up_questions: string[];
  custom_fields: Record<string, CustomFieldValue>;
  engine: EngineInfo;
}

/** A link's evaluator settings (snake_case as in the API). */
export interface EvaluatorConfig {
  /** Probe when clarity is below this, 0..1; default 0.6. */
  clarity_threshold?: number;
  /** Most follow-up questions to ask, default 1. */
  max_follow_ups?: number;
  /** Names of fields to extract from the answer. */
  custom_fields?: string[];
}

/** Options of one `analyse` call. */
export interface AnalyseOptions {
  evaluatorConfig?: EvaluatorConfig;
  /** Generate follow-up questions (when clarity is low); default false. */
  enableDynamicProbing?: boolean;
  /** The question's prompt, used for context in generic follow-ups and by the LLM. */
  prompt?: string;
}

/** The engine the worker and the CLI hold. */
export interface InsightsEngine {
  /**
   * Analyses one answer.
   * @param text the typed answer or transcript (any length; empty gives a neutral, zero-clarity
   *   result).
   * @returns the {@link AnalysisResult}; never rejects for ordinary text (every optional part
   *   falls back to a local result).
   */
  analyse(text: string, opts?: AnalyseOptions): Promise<AnalysisResult>;
  /** Loads the sentiment model and NLP model now instead of on the first `analyse`. */
  warmUp(): Promise<void>;
}
