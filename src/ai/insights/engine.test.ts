import { describe, expect, test } from "bun:test";
import path from "node:path";
import { createInsightsEngine, LEXICON_ENGINE_ID, type AnalysisResult } from "./index.ts";
import { FIXTURE_MODELS_DIR } from "../../../test/helpers/fixtures.ts";

const CHECKOUT = "The checkout page keeps crashing when I pay with my card";

function expectWellFormed(result: AnalysisResult): void {
  const { ai_insights: insights } = result;
  expect(["positive", "neutral", "negative"]).toContain(insights.sentiment);
  expect(insights.sentiment_score).toBeGreaterThanOrEqual(-1);
  expect(insights.sentiment_score).toBeLessThanOrEqual(1);
  expect(insights.key_topics.length).toBeLessThanOrEqual(5);
  for (const topic of insights.key_topics) expect(topic).toBe(topic.toLowerCase());
  expect(new Set(insights.key_topics).size).toBe(insights.key_topics.length);
  expect(result.clarity).toBeGreaterThanOrEqual(0);
  expect(result.clarity).toBeLessThanOrEqual(1);
  expect(result.engine.text).toBe("wink-nlp:wink-eng-lite-web-model");
}

describe("transformer sentiment (fixture tiny-sentiment-3class)", () => {
  const engine = createInsightsEngine({ modelsDir: FIXTURE_MODELS_DIR, sentimentModel: "tiny-sentiment-3class" });

  test("a bug report is negative and reported as the transformer's", async () => {
    const result = await engine.analyse(CHECKOUT);
    expectWellFormed(result);
    expect(result.engine).toEqual({
      sentiment: "transformer:tiny-sentiment-3class",
      text: "wink-nlp:wink-eng-lite-web-model",
      llm: false,
    });
    expect(result.ai_insights.sentiment).toBe("negative");
    expect(result.ai_insights.sentiment_score).toBeLessThan(-0.5);
    expect(result.ai_insights.actionable).toBe(true);
    expect(result.ai_insights.key_topics).toEqual(["checkout page", "card"]);
  });

  test("text with none of the fixture's words is neutral with score 0", async () => {
    const result = await engine.analyse("We stayed three nights for a conference.");
    expect(result.ai_insights.sentiment).toBe("neutral");
    expect(result.ai_insights.sentiment_score).toBe(0);
  });

  test("warmUp loads once and analyse still works after it", async () => {
    await engine.warmUp();
    await engine.warmUp();
    expect((await engine.analyse(CHECKOUT)).engine.sentiment).toBe("transformer:tiny-sentiment-3class");
  });
});

describe("transformer sentiment (fixture tiny-sentiment, 2 classes)", () => {
  test("NEGATIVE/POSITIVE map to the three values, 0.5/0.5 is neutral", async () => {
    const engine = createInsightsEngine({ modelsDir: FIXTURE_MODELS_DIR, sentimentModel: "tiny-sentiment" });
    const negative = await engine.analyse(CHECKOUT);
    expect(negative.engine.sentiment).toBe("transformer:tiny-sentiment");
    expect(negative.ai_insights.sentiment).toBe("negative");
    const unknown = await engine.analyse("We stayed three nights for a conference.");
    expect(unknown.ai_insights.sentiment).toBe("neutral");
    expect(unknown.ai_insights.sentiment_score).toBe(0);
  });
});

describe("fallback without a transformer", () => {
  const engine = createInsightsEngine({ modelsDir: FIXTURE_MODELS_DIR, sentimentModel: "absent/model-id" });

  // Since issue 16 the embedded trained model answers (it was VADER before); VADER is one of its features.
  test("an absent model id falls back to the embedded trained model, so insights still exist", async () => {
    const result = await engine.analyse(CHECKOUT);
    expectWellFormed(result);
    expect(result.engine.sentiment).toBe("trained:linear-v2");
    expect(result.ai_insights.sentiment).toBe("negative");
  });

  test("the lexicon engine is still available on request", async () => {
    const lexicon = createInsightsEngine({ modelsDir: FIXTURE_MODELS_DIR, sentimentModel: "absent", fallback: "lexicon" });
    const result = await lexicon.analyse(CHECKOUT);
    expect(result.engine.sentiment).toBe(LEXICON_ENGINE_ID);
    expect(result.ai_insights.sentiment).toBe("negative");
    expect(result.ai_insights.actionable).toBe(true);
  });

  test("clear praise and complaints", async () => {
    const praise = await engine.analyse("The staff were wonderful and the breakfast was excellent.");
    expect(praise.ai_insights.sentiment).toBe("positive");
    expect(praise.ai_insights.sentiment_score).toBeGreaterThan(0.5);
    expect(praise.ai_insights.actionable).toBe(false);
    const complaint = await engine.analyse("Terrible support, the agent was rude and hung up on me.");
    expect(complaint.ai_insights.sentiment).toBe("negative");
    expect(complaint.ai_insights.actionable).toBe(true);
  });

  test("a models folder that does not exist is not an error", async () => {
    const elsewhere = createInsightsEngine({ modelsDir: "/nonexistent/models", sentimentModel: "x" });
    expect((await elsewhere.analyse("Lovely hotel.")).engine.sentiment).toBe("trained:linear-v2");
  });

  test("empty text gives an empty, neutral, zero-clarity result", async () => {
    const result = await engine.analyse("   ", { evaluatorConfig: { custom_fields: ["wants_callback"] } });
    expect(result.ai_insights).toEqual({
      sentiment: "neutral",
      sentiment_score: 0,
      actionable: false,
      key_topics: [],
      summary: "",
    });
    expect(result.clarity).toBe(0);
    expect(result.custom_fields).toEqual({ wants_callback: false });
  });
});

describe("options through the engine", () => {
  const engine = createInsightsEngine({ modelsDir: FIXTURE_MODELS_DIR, sentimentModel: "absent" });

  test("follow-ups only with probing enabled and clarity below the threshold", async () => {
    const vague = "I don't know, the checkout was kind of weird I guess.";
    const off = await engine.analyse(vague);
    expect(off.clarity).toBeLessThan(0.6);
    expect(off.follow_up_questions).toEqual([]);
    const on = await engine.analyse(vague, { enableDynamicProbing: true });
    expect(on.follow_up_questions).toHaveLength(1);
    expect(on.follow_up_questions[0]).toStartWith("You mentioned the checkout — ");
    const clear = await engine.analyse(CHECKOUT, { enableDynamicProbing: true });
    expect(clear.clarity).toBeGreaterThanOrEqual(0.6);
    expect(clear.follow_up_questions).toEqual([]);
  });

  test("custom fields are extracted per name", async () => {
    const result = await engine.analyse("The Wi-Fi in room 12 dropped for 40 minutes. Please call me back tomorrow.", {
      evaluatorConfig: { custom_fields: ["wants_callback", "wait_minutes", "product_mentioned", "favourite_colour"] },
    });
    expect(result.custom_fields).toEqual({
      wants_callback: true,
      wait_minutes: 40,
      product_mentioned: "wi-fi",
      favourite_colour: null,
    });
  });
});
