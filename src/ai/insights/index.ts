/**
 * @module ai/insights
 * Text analysis of answers ("insights", DESIGN §7 and §9). Import from here:
 * `createInsightsEngine(opts).analyse(text, { evaluatorConfig, enableDynamicProbing, prompt })`.
 */
export { createInsightsEngine, TEXT_ENGINE_ID, type InsightsEngineOptions } from "./engine.ts";
export { LEXICON_ENGINE_ID } from "./sentiment-lexicon.ts";
export { INSTALLED_MODEL_DIR, TRAINED_ENGINE_PREFIX, installedModelPath } from "./trained/loader.ts";
export { hasLocalModel } from "./sentiment-transformer.ts";
export { LLM_TIMEOUT_MS } from "./llm.ts";
export { DEFAULT_CLARITY_THRESHOLD, DEFAULT_MAX_FOLLOW_UPS } from "./follow-ups.ts";
export type {
  AiInsights,
  AnalyseOptions,
  AnalysisResult,
  CustomFieldValue,
  EngineInfo,
  EvaluatorConfig,
  InsightsEngine,
  Sentiment,
} from "./types.ts";
