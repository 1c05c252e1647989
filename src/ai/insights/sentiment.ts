/**
 * @module ai/insights/sentiment
 * Chooses the sentiment engine once, lazily: the transformer model when its files are in the
 * models directory and it loads, otherwise the trained linear model (./trained/, the model the
 * binary embeds or one retrained on the box), so insights always exist. VADER
 * (./sentiment-lexicon.ts) is one of the trained model's features; it answers on its own only
 * when asked for (`fallback: "lexicon"`, used to measure the old engine). The engine that
 * answered each text is reported with the result.
 */
import { LEXICON_ENGINE_ID, lexiconSentiment } from "./sentiment-lexicon.ts";
import { createModelSource, TRAINED_ENGINE_PREFIX } from "./trained/loader.ts";
import { predict, type Prediction } from "./trained/model.ts";
import { type ClassifyFn, hasLocalModel, loadTransformerClassifier, mapClassifierOutput } from "./sentiment-transformer.ts";
import type { SentimentResult } from "./types.ts";

/** A sentiment result and the engine that produced it. */
export interface SentimentOutcome extends SentimentResult {
  /** `"transformer:<model id>"`, `"trained:<model id>"` or `"lexicon:vader"`. */
  engine: string;
  /** The trained model's prediction for the text (absent with `fallback: "lexicon"`). */
  trained?: Prediction;
}

/** The engine that answers when no transformer is installed. */
export type FallbackEngine = "trained" | "lexicon";

/** Classifies answers with the best available engine. */
export interface SentimentAnalyser {
  /**
   * @param text the answer.
   * @param reportsProblem whether the answer reports a concrete problem (used by VADER only).
   * @returns label, score −1..1, engine id and the trained model's prediction; never rejects
   *   (a failing transformer falls back to the trained model for that text).
   */
  classify(text: string, reportsProblem: boolean): Promise<SentimentOutcome>;
  /** Loads the model now; resolves to the engine id that will be used. */
  ready(): Promise<string>;
}

/**
 * Creates the analyser. Nothing is loaded until the first `classify` or `ready`.
 * @param opts.modelsDir folder holding model folders (`<modelsDir>/<sentimentModel>/onnx/model[_quantized].onnx`).
 * @param opts.sentimentModel model id, e.g. "Xenova/twitter-roberta-base-sentiment-latest".
 * @param opts.onWarning receives one line when a model exists but fails to load.
 * @param opts.fallback engine without a transformer: "trained" (default) or "lexicon".
 */
export function createSentimentAnalyser(opts: {
  modelsDir: string;
  sentimentModel: string;
  onWarning?: (message: string) => void;
  fallback?: FallbackEngine;
}): SentimentAnalyser {
  let loading: Promise<ClassifyFn | null> | null = null;
  const transformerId = `transformer:${opts.sentimentModel}`;
  const useLexicon = opts.fallback === "lexicon";
  const trainedModel = createModelSource(opts.modelsDir, opts.onWarning);

  const load = (): Promise<ClassifyFn | null> => {
    loading ??= hasLocalModel(opts.modelsDir, opts.sentimentModel)
      ? loadTransformerClassifier(opts.modelsDir, opts.sentimentModel).catch((error: unknown) => {
          opts.onWarning?.(`sentiment model ${opts.sentimentModel} failed to load, using the ${useLexicon ? "lexicon" : "trained"} engine: ${String(error)}`);
          return null;
        })
      : Promise.resolve(null);
    return loading;
  };

  return {
    async ready() {
      // One prediction decodes the embedded word vectors now, not during the first answer.
      if (!useLexicon) predict(trainedModel(), "Warm up.");
      if (await load()) return transformerId;
      return useLexicon ? LEXICON_ENGINE_ID : TRAINED_ENGINE_PREFIX + trainedModel().id;
    },
    async classify(text, reportsProblem) {
      const classify = await load();
      const model = useLexicon ? null : trainedModel();
      const trained = model ? predict(model, text) : undefined;
      if (classify && text.trim() !== "") {
        try {
          return { ...mapClassifierOutput(await classify(text)), engine: transformerId, trained };
        } catch {
          // One bad input must not lose the insight: the fallback engine answers for this text.
        }
      }
      if (model && trained) {
        return { sentiment: trained.sentiment, score: trained.score, engine: TRAINED_ENGINE_PREFIX + model.id, trained };
      }
      return { ...lexiconSentiment(text, reportsProblem), engine: LEXICON_ENGINE_ID };
    },
  };
}
