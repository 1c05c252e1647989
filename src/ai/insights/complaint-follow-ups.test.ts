/**
 * @module ai/insights/complaint-follow-ups.test
 * Issue 24: "A negative answer about a hidden shipping cost got the follow-up 'You mentioned the
 * fixture transcript — what did you like most about it?'". A complaint is never asked what the
 * respondent liked, over every negative answer of both held-out sets (written in voices the
 * model was not trained on), with the trained engine and with the fixture transformer (whose
 * sentiment is nearly random, so the wording must not rest on it alone); and upstream
 * boilerplate never becomes a topic or a follow-up.
 */
import { describe, expect, test } from "bun:test";
import path from "node:path";
import { FIXTURE_MODELS_DIR } from "../../../test/helpers/fixtures.ts";
import { asksWhatTheyLiked, generateFollowUps, resolveProbing } from "./follow-ups.ts";
import { createInsightsEngine } from "./index.ts";
import { mergeLlmReply } from "./llm.ts";
import { readLabelledFile } from "./trained/metrics.ts";

const CORPUS = path.resolve(import.meta.dir, "../../../corpus/insights");
const negatives = [...readLabelledFile(path.join(CORPUS, "heldout.jsonl")), ...readLabelledFile(path.join(CORPUS, "heldout-voices.jsonl"))].filter(
  (e) => e.sentiment === "negative",
);
// Probing always asks (threshold 1), five questions each: every wording the generator has.
const PROBE_ALL = { enableDynamicProbing: true, evaluatorConfig: { clarity_threshold: 1, max_follow_ups: 5 } };

describe("follow-ups to complaints", () => {
  const engines = [
    ["trained", createInsightsEngine({ modelsDir: path.join(CORPUS, "no-models-here"), sentimentModel: "(none)" })],
    ["fixture transformer", createInsightsEngine({ modelsDir: FIXTURE_MODELS_DIR, sentimentModel: "tiny-sentiment-3class" })],
  ] as const;

  for (const [name, engine] of engines) {
    test(`no negative answer of the held-out sets is asked what it liked (${name})`, async () => {
      expect(negatives.length).toBeGreaterThan(300);
      const liked: string[] = [];
      let probed = 0;
      for (const answer of negatives) {
        const r = await engine.analyse(answer.text, { ...PROBE_ALL, prompt: "How was checkout?" });
        // A perfectly clear answer (clarity 1) is never probed; every other one gets five.
        if (r.clarity >= 1) continue;
        probed += 1;
        expect(r.follow_up_questions).toHaveLength(5);
        for (const q of r.follow_up_questions) if (asksWhatTheyLiked(q)) liked.push(`${answer.text} → ${q}`);
      }
      expect(liked).toEqual([]);
      expect(probed).toBeGreaterThan(100);
    }, 60_000);
  }

  test("the issue's answer: a hidden shipping cost, with the fixture transcript beside it", async () => {
    const engine = engines[1][1];
    const text = "This is a fixture transcript. The shipping cost only showed at the last step.";
    const r = await engine.analyse(text, { ...PROBE_ALL, prompt: "How was checkout?" });
    expect(r.clarity).toBeLessThan(1);
    expect(r.ai_insights.key_topics).toEqual(["shipping cost"]);
    expect(r.follow_up_questions[0]).toBe("You mentioned the shipping cost — what would have made it better?");
    for (const q of r.follow_up_questions) {
      expect(q).not.toMatch(/fixture|transcript/i);
      expect(asksWhatTheyLiked(q)).toBe(false);
    }
  });

  test("a fixture transcript alone names no topic and gets only generic questions", async () => {
    const r = await engines[0][1].analyse("This is a fixture transcript.", PROBE_ALL);
    expect(r.ai_insights.key_topics).toEqual([]);
    for (const q of r.follow_up_questions) expect(q).not.toMatch(/fixture|transcript/i);
  });
});

describe("follow-ups an LLM suggests", () => {
  test("for a negative answer, those asking what the respondent liked are dropped", async () => {
    const engine = createInsightsEngine({ modelsDir: path.join(CORPUS, "no-models-here"), sentimentModel: "(none)" });
    const local = await engine.analyse("Hidden fees at checkout, again.", PROBE_ALL);
    expect(local.ai_insights.sentiment).toBe("negative");
    const merged = mergeLlmReply(local, { follow_up_questions: ["What did you like most about checkout?", "Which fee surprised you?"] }, 2);
    expect(merged.follow_up_questions[0]).toBe("Which fee surprised you?");
    expect(merged.follow_up_questions).toHaveLength(2);
    expect(merged.follow_up_questions.some(asksWhatTheyLiked)).toBe(false);
  });
});

describe("wording by tone", () => {
  const five = resolveProbing(true, { max_follow_ups: 5 });
  const base = { clarity: 0.1, topics: ["delivery fee"], actionable: false, prompt: "How was checkout?" };

  test("a complaint gets 'what would have made it better', whatever the sentiment label says", () => {
    for (const input of [
      { ...base, sentiment: "negative" as const },
      { ...base, sentiment: "positive" as const, sentimentScore: 0.9, reportsProblem: true },
      { ...base, sentiment: "neutral" as const, reportsProblem: true },
    ]) {
      const qs = generateFollowUps(input, five);
      expect(qs[0]).toBe("You mentioned the delivery fee — what would have made it better?");
      expect(qs.some(asksWhatTheyLiked)).toBe(false);
    }
  });

  test("only confident praise is asked what it liked; a request is asked what to change", () => {
    expect(generateFollowUps({ ...base, sentiment: "positive", sentimentScore: 0.8 }, five)[0]).toBe(
      "You mentioned the delivery fee — what did you like most about it?",
    );
    expect(generateFollowUps({ ...base, sentiment: "positive", sentimentScore: 0.2 }, five)[0]).toBe(
      "You mentioned the delivery fee — could you tell us more about it?",
    );
    expect(generateFollowUps({ ...base, sentiment: "neutral", actionable: true }, five)[0]).toBe(
      "You mentioned the delivery fee — what would you change about it?",
    );
    const subject = generateFollowUps({ ...base, topics: [], sentiment: "negative" }, five);
    expect(subject[0]).toBe("What would have made the checkout better?");
  });

  test("asksWhatTheyLiked recognises the praise probes and nothing else", () => {
    expect(asksWhatTheyLiked("You mentioned the app — what did you like most about it?")).toBe(true);
    expect(asksWhatTheyLiked("What did you enjoy about the stay?")).toBe(true);
    expect(asksWhatTheyLiked("What was your favourite dish?")).toBe(true);
    expect(asksWhatTheyLiked("What would have made your experience better?")).toBe(false);
    expect(asksWhatTheyLiked("Is there anything else you would like us to know?")).toBe(false);
    expect(asksWhatTheyLiked("You mentioned the fee — what would you change about it?")).toBe(false);
  });
});
