/**
 * @module ai/insights/sentiment
 * Chooses the sentiment engine once, lazily: the transformer model when its files are in the
 * models directory and it loads, otherwise VADER (./sentiment-lexicon.ts), so insights always
 * exist. The engine that answered each text is reported with the result.
 */
import { LEXICON_ENGINE_ID, lexiconSentiment } from "./sentiment-lexicon.ts";
import {
  type ClassifyFn,
  hasLocalModel,
  loadTransformerClassifier,
  mapClassifierOutput,
} from "./sentiment-transformer.ts";
import type { SentimentResult } from "./types.ts";

/** A sentiment result and the engine that produced it. */
export interface SentimentOutcome extends SentimentResult {
  /** `"transformer:<model id>"` or `"lexicon:vader"`. */
  engine: string;
}

/** Classifies answers with the best available engine. */
export interface SentimentAnalyser {
  /**
   * @param text the answer.
   * @param reportsProblem whether the answer reports a concrete problem (used by VADER only).
   * @returns label, score −1..1 and engine id; never rejects (a failing model falls back to
   *   VADER for that text).
   */
  classify(text: string, reportsProblem: boolean): Promise<SentimentOutcome>;
  /** Loads the model now; resolves to the engine id that will be used. */
  ready(): Promise<string>;
}

/**
 * Creates the analyser. Nothing is loaded until the first `classify` or `ready`.
 * @param opts.modelsDir folder holding model folders (`<modelsDir>/<sentimentModel>/onnx/model[_quantized].onnx`).
 * @param opts.sentimentModel model id, e.g. "Xenova/twitter-roberta-base-sentiment-latest".
 * @param opts.onWarning receives one line when the model exists but fails to load.
 */
export function createSentimentAnalyser(opts: {
  modelsDir: string;
  sentimentModel: string;
  onWarning?: (message: string) => void;
}): SentimentAnalyser {
  let loading: Promise<ClassifyFn | null> | null = null;
  const transformerId = `transformer:${opts.sentimentModel}`;

  const load = (): Promise<ClassifyFn | null> => {
    loading ??= hasLocalModel(opts.modelsDir, opts.sentimentModel)
      ? loadTransformerClassifier(opts.modelsDir, opts.sentimentModel).catch((error: unknown) => {
          opts.onWarning?.(
            `sentiment model ${opts.sentimentModel} failed to load, using ${LEXICON_ENGINE_ID}: ${String(error)}`,
          );
          return null;
        })
      : Promise.resolve(null);
    return loading;
  };

  return {
    async ready() {
      return (await load()) ? transformerId : LEXICON_ENGINE_ID;
    },
    async classify(text, reportsProblem) {
      const classify = await load();
      if (classify && text.trim() !== "") {
        try {
          return { ...mapClassifierOutput(await classify(text)), engine: transformerId };
        } catch {
          // One bad input must not lose the insight: VADER answers for this text.
        }
      }
      return { ...lexiconSentiment(text, reportsProblem), engine: LEXICON_ENGINE_ID };
    },
  };
}
