/**
 * @module ai/insights/engine
 * The insights engine: sentiment, key topics, summary, actionable, clarity, follow-up questions
 * and custom fields for one answer (DESIGN §7, §9), all computed locally, then optionally
 * improved by a LAN LLM. Holds no I/O besides loading the sentiment model once and the optional
 * LLM call, so it runs the same in the AI worker thread and in the CLI.
 */
import { isActionable } from "./actionable.ts";
import { stripBoilerplate } from "./boilerplate.ts";
import { removeDisfluencies } from "./disfluency.ts";
import { scoreClarity } from "./clarity.ts";
import { findProblemCues, findRequestCues } from "./cues.ts";
import { extractCustomFields } from "./custom-fields.ts";
import { expressesLiking, generateFollowUps, resolveProbing, shouldProbe } from "./follow-ups.ts";
import { mergeLlmReply, requestLlmImprovements } from "./llm.ts";
import { createSentimentAnalyser, type FallbackEngine } from "./sentiment.ts";
import { summarise } from "./summary.ts";
import { parseText } from "./text.ts";
import { extractKeyTopics } from "./topics.ts";
import type { AnalyseOptions, AnalysisResult, InsightsEngine } from "./types.ts";

/** Value of `engine.text`: the local NLP library and its language model. */
export const TEXT_ENGINE_ID = "wink-nlp:wink-eng-lite-web-model";

/** Options of {@link createInsightsEngine}. */
export interface InsightsEngineOptions {
  /** Folder holding model folders (config `modelsDir`). */
  modelsDir: string;
  /** Sentiment model id, a folder under `modelsDir` (config `sentimentModel`). */
  sentimentModel: string;
  /** OpenAI-compatible endpoint (`EARSHOT_LLM_URL`); null or absent: local only. */
  llmUrl?: string | null;
  /** Model name sent to the endpoint (`EARSHOT_LLM_MODEL`). */
  llmModel?: string | null;
  /** LLM timeout in ms; default 10 000 (tests shorten it). */
  llmTimeoutMs?: number;
  /** Receives a line when the sentiment model exists but fails to load; default console.warn. */
  onWarning?: (message: string) => void;
  /**
   * Engine for sentiment and actionable when no transformer is installed: "trained" (default,
   * ./trained/) or "lexicon" (VADER and the hand-written rules, kept to measure against).
   */
  fallback?: FallbackEngine;
}

/**
 * Creates an engine. Cheap: the sentiment model and the NLP model load on first use (or
 * `warmUp()`), once per engine and thread.
 * @returns an {@link InsightsEngine}; `analyse` never rejects for ordinary text.
 */
export function createInsightsEngine(opts: InsightsEngineOptions): InsightsEngine {
  const sentiment = createSentimentAnalyser({
    modelsDir: opts.modelsDir,
    sentimentModel: opts.sentimentModel,
    onWarning: opts.onWarning ?? ((message) => console.warn(message)),
    fallback: opts.fallback,
  });

  async function analyseLocally(text: string, options: AnalyseOptions): Promise<AnalysisResult> {
    // Topics, summary, clarity and custom fields read the answer without "um", "you know" and
    // false starts (./disfluency.ts); the sentiment models get the answer as spoken.
    // Upstream boilerplate (./boilerplate.ts: the fixture ASR's line, Whisper's "Thanks for
    // watching!") is not the respondent's: it never becomes a topic, summary or follow-up.
    const parsed = parseText(removeDisfluencies(stripBoilerplate(text)));
    const cues = [...findRequestCues(parsed), ...findProblemCues(parsed)];
    const reportsProblem = cues.some((c) => c.kind === "problem");
    const mood = await sentiment.classify(text, reportsProblem);
    const topics = extractKeyTopics(parsed);
    // The trained model decides actionable whenever it ran (also beside a transformer, which
    // only knows sentiment); the hand-written rules only in lexicon mode.
    const actionable = mood.trained ? mood.trained.actionable : isActionable(parsed, cues);
    const clarity = scoreClarity(parsed);
    const probing = resolveProbing(options.enableDynamicProbing, options.evaluatorConfig);
    // Worded as a complaint when the cues report a problem or the trained model reads the answer
    // as negative beside a transformer that does not (a complaint is never asked what it liked).
    const complaint = reportsProblem || mood.trained?.sentiment === "negative";
    const followUps = generateFollowUps(
      {
        clarity,
        topics,
        sentiment: mood.sentiment,
        sentimentScore: mood.score,
        // Read only when probing asks and the answer is positive (the check walks every token).
        praises: shouldProbe(clarity, probing) && mood.sentiment === "positive" ? expressesLiking(parsed) : undefined,
        actionable,
        reportsProblem: complaint,
        prompt: options.prompt,
      },
      probing,
    );
    return {
      ai_insights: {
        sentiment: mood.sentiment,
        sentiment_score: mood.score,
        actionable,
        key_topics: topics,
        summary: summarise(parsed, cues),
      },
      clarity,
      follow_up_questions: followUps,
      custom_fields: extractCustomFields(options.evaluatorConfig?.custom_fields, parsed, {
        sentiment: mood.sentiment,
        topics,
        cues,
      }),
      engine: { sentiment: mood.engine, text: TEXT_ENGINE_ID, llm: false },
    };
  }

  return {
    async warmUp() {
      await sentiment.ready();
      parseText("Warm up.");
    },
    async analyse(text, options = {}) {
      const local = await analyseLocally(text.trim(), options);
      if (!opts.llmUrl || text.trim() === "") return local;
      const probing = resolveProbing(options.enableDynamicProbing, options.evaluatorConfig);
      const followUpCount = shouldProbe(local.clarity, probing) ? probing.maxFollowUps : 0;
      const reply = await requestLlmImprovements({
        url: opts.llmUrl,
        model: opts.llmModel ?? null,
        text: text.trim(),
        prompt: options.prompt,
        local,
        followUpCount,
        customFieldNames: Object.keys(local.custom_fields),
        timeoutMs: opts.llmTimeoutMs,
      });
      return reply ? mergeLlmReply(local, reply, followUpCount) : local;
    },
  };
}
