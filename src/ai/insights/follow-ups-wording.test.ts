/**
 * @module ai/insights/follow-ups-wording.test
 * The wording of follow-up questions without an LLM (issue 12, "The respondent's page"): short
 * questions a person would ask, about the answer's topic or the prompt's subject, never quoting
 * the prompt, always ending in exactly one "?".
 */
import { describe, expect, test } from "bun:test";
import { generateFollowUps, promptSubject, resolveProbing, tidyQuestion, type FollowUpInput } from "./follow-ups.ts";
import type { Sentiment } from "./types.ts";

const PROMPTS = [
  "What did you think of the product?",
  "How was your stay?",
  "Tell us more in your own words",
  "What brought you here today?",
  "Anything else? Speak or type.",
  "How likely are you to recommend us?",
  "Describe your last support call",
  'What do you think about our "new" pricing page?!',
];

function input(prompt: string, sentiment: Sentiment = "neutral", topics: string[] = []): FollowUpInput {
  return { clarity: 0.2, topics, sentiment, actionable: false, prompt };
}

describe("follow-up wording", () => {
  test("never quotes the prompt, never doubles punctuation, stays short", () => {
    for (const prompt of PROMPTS) {
      for (const sentiment of ["positive", "neutral", "negative"] as const) {
        const questions = generateFollowUps(input(prompt, sentiment), resolveProbing(true, { max_follow_ups: 5 }));
        expect(questions).toHaveLength(5);
        expect(new Set(questions).size).toBe(5);
        for (const q of questions) {
          expect(q).not.toContain(prompt.trim());
          expect(q).not.toMatch(/[“”"]/);
          expect(q).toMatch(/[^?!.…"”’'\s]\?$/);
          expect(q.split(/\s+/).length).toBeLessThanOrEqual(14);
        }
      }
    }
  });

  test("about the prompt's subject when the answer names nothing", () => {
    const one = resolveProbing(true, {});
    expect(generateFollowUps(input("What did you think of the product?"), one)).toEqual(["What stood out to you about the product?"]);
    expect(generateFollowUps(input("What did you think of the product?", "positive"), one)).toEqual(["What did you like most about the product?"]);
    expect(generateFollowUps(input("Describe your last support call", "negative"), one)).toEqual(["What would have made the support call better?"]);
    expect(generateFollowUps(input('What do you think about our "new" pricing page?!'), one)).toEqual(["What stood out to you about the pricing page?"]);
  });

  test("prompts without a clear subject get a plain generic question", () => {
    expect(promptSubject("Tell us more in your own words")).toBeNull();
    expect(promptSubject("What brought you here today?")).toBeNull();
    expect(promptSubject("Anything else? Speak or type.")).toBeNull();
    expect(promptSubject("How likely are you to recommend us?")).toBeNull();
    expect(generateFollowUps(input("Tell us more in your own words"), resolveProbing(true, {}))).toEqual([
      "Could you tell us a bit more — what specifically stood out to you?",
    ]);
  });

  test("the answer's topics come first and are cleaned of quotes and punctuation", () => {
    const questions = generateFollowUps(input("How was your stay?", "negative", ['"checkout page"?']), resolveProbing(true, { max_follow_ups: 2 }));
    expect(questions).toEqual(["You mentioned the checkout page — what would have made it better?", "What would have made your experience better?"]);
  });

  test("tidyQuestion ends every question in one question mark", () => {
    expect(tidyQuestion('What happened?"?')).toBe("What happened?");
    expect(tidyQuestion("What happened?!  ")).toBe("What happened?");
    expect(tidyQuestion("What  went\nwrong")).toBe("What went wrong?");
  });
});
