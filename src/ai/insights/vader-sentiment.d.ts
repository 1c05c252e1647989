/**
 * @module ai/insights/vader-sentiment
 * Type declarations for `vader-sentiment` 1.1.3, which ships none. Only the one call Earshot
 * uses is declared (see the package README: `SentimentIntensityAnalyzer.polarity_scores`),
 * plus its word list, which the trained model reads directly (./trained/features.ts).
 */
declare module "vader-sentiment" {
  /** Proportions of negative/neutral/positive text (sum ≈ 1) and the normalised compound −1..1. */
  export interface VaderScores {
    neg: number;
    neu: number;
    pos: number;
    compound: number;
  }
  export const SentimentIntensityAnalyzer: {
    polarity_scores(text: string): VaderScores;
  };
}

declare module "vader-sentiment/src/vader_lexicon.js" {
  /** Word → mean valence (−4..4) from VADER's human ratings. */
  export const lexicon: Record<string, number>;
}
