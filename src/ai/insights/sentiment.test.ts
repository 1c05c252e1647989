import { describe, expect, test } from "bun:test";
import { LEXICON_ENGINE_ID, labelFromScore, lexiconSentiment } from "./sentiment-lexicon.ts";
import { labelPolarity, mapClassifierOutput } from "./sentiment-transformer.ts";

describe("classifier label mapping", () => {
  test("3-class negative/neutral/positive: argmax label, expected polarity score", () => {
    expect(
      mapClassifierOutput([
        { label: "negative", score: 0.7214 },
        { label: "neutral", score: 0.2654 },
        { label: "positive", score: 0.0132 },
      ]),
    ).toEqual({ sentiment: "negative", score: -0.708 });
    expect(
      mapClassifierOutput([
        { label: "neutral", score: 0.576 },
        { label: "negative", score: 0.212 },
        { label: "positive", score: 0.212 },
      ]),
    ).toEqual({ sentiment: "neutral", score: 0 });
  });

  test("2-class NEGATIVE/POSITIVE: neutral band around 0", () => {
    expect(
      mapClassifierOutput([
        { label: "NEGATIVE", score: 0.98 },
        { label: "POSITIVE", score: 0.02 },
      ]),
    ).toEqual({ sentiment: "negative", score: -0.96 });
    expect(
      mapClassifierOutput([
        { label: "NEGATIVE", score: 0.55 },
        { label: "POSITIVE", score: 0.45 },
      ]).sentiment,
    ).toBe("neutral");
    expect(
      mapClassifierOutput([
        { label: "POSITIVE", score: 0.9 },
        { label: "NEGATIVE", score: 0.1 },
      ]).sentiment,
    ).toBe("positive");
  });

  test("LABEL_n by position and star ratings", () => {
    expect(labelPolarity("LABEL_0", 3)).toBe(-1);
    expect(labelPolarity("LABEL_1", 3)).toBe(0);
    expect(labelPolarity("LABEL_1", 2)).toBe(1);
    expect(labelPolarity("5 stars", 5)).toBe(1);
    expect(labelPolarity("1 star", 5)).toBe(-1);
    expect(labelPolarity("joy", 6)).toBeNull();
    expect(
      mapClassifierOutput([
        { label: "1 star", score: 0.05 },
        { label: "2 stars", score: 0.05 },
        { label: "3 stars", score: 0.1 },
        { label: "4 stars", score: 0.3 },
        { label: "5 stars", score: 0.5 },
      ]).sentiment,
    ).toBe("positive");
    expect(mapClassifierOutput([{ label: "joy", score: 1 }])).toEqual({ sentiment: "neutral", score: 0 });
  });
});

describe("VADER lexicon", () => {
  test("uses VADER's ±0.05 thresholds", () => {
    expect(LEXICON_ENGINE_ID).toBe("lexicon:vader");
    expect(labelFromScore(0.05)).toBe("positive");
    expect(labelFromScore(0.049)).toBe("neutral");
    expect(labelFromScore(-0.05)).toBe("negative");
    expect(lexiconSentiment("I love this, it is wonderful.", false).sentiment).toBe("positive");
    expect(lexiconSentiment("The room was awful.", false).sentiment).toBe("negative");
    expect(lexiconSentiment("The laptop arrived on Tuesday.", false)).toEqual({ sentiment: "neutral", score: 0 });
  });

  test("a problem report VADER finds neutral is negative; strong praise stays positive", () => {
    expect(lexiconSentiment("The printer jams on every page.", false).sentiment).toBe("neutral");
    expect(lexiconSentiment("The printer jams on every page.", true)).toEqual({ sentiment: "negative", score: -0.4 });
    expect(lexiconSentiment("I love it, amazing app, just one small crash.", true).sentiment).toBe("positive");
  });
});
