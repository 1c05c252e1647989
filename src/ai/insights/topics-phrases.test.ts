/**
 * @module ai/insights/topics-phrases.test
 * Issue 24: key topics are phrases a person would use. The dashboard of a checkout link showed
 * "card number", "shipping cost", "step", "fixture transcript", "show": steps of using a thing,
 * a sentence-initial verb and the fixture ASR's boilerplate counted as nouns. Each case below is
 * an answer and the topics it must give.
 */
import { describe, expect, test } from "bun:test";
import { stripBoilerplate } from "./boilerplate.ts";
import { removeDisfluencies } from "./disfluency.ts";
import { parseText } from "./text.ts";
import { extractKeyTopics } from "./topics.ts";

// The engine's own pipeline (./engine.ts): boilerplate, then disfluencies, then the parse.
const topicsOf = (text: string) => extractKeyTopics(parseText(removeDisfluencies(stripBoilerplate(text))));

describe("key topics a person would use", () => {
  const cases: [string, string[]][] = [
    // Upstream boilerplate: the fixture ASR's transcript and Whisper's lines over silence.
    ["This is a fixture transcript.", []],
    ["This is a fixture transcript. The delivery fee was a surprise.", ["delivery fee"]],
    ["Thank you for watching. Subscribe to my channel.", []],
    ["The courier was late again. Subtitles by the Amara.org community", ["courier"]],
    // Steps, counts and durations are not topics; the things are.
    ["The shipping cost only showed up at the last step, after I had typed my card number.", ["shipping cost", "card number"]],
    ["Checkout was quick, I paid in two taps.", ["checkout"]],
    ["It took ages to load the payment page.", ["payment page"]],
    // A sentence-initial imperative is not a noun.
    ["Show the delivery fee before the payment step please.", ["delivery fee", "payment step"]],
    // A participle inside the phrase stays: that is how people say it.
    ["um so the, the hidden shipping cost, like, I only saw it at the very end", ["hidden shipping cost"]],
    ["They charged a hidden booking fee.", ["hidden booking fee"]],
    // Generic heads and days name nothing.
    ["Same as usual, the usual things, nothing new on Friday.", []],
  ];
  for (const [text, expected] of cases) {
    test(text, () => {
      expect(topicsOf(text)).toEqual(expected);
    });
  }

  test("boilerplate is removed as whole lines, not as words inside an answer", () => {
    expect(stripBoilerplate("This is a fixture transcript.")).toBe("");
    expect(stripBoilerplate("Thank you for watching.")).toBe("");
    expect(stripBoilerplate("Great staff. Subtitles by the Amara.org community")).toBe("Great staff.");
    expect(stripBoilerplate("The transcript of my call was never sent.")).toBe("The transcript of my call was never sent.");
    expect(stripBoilerplate("I watched the video and it helped.")).toBe("I watched the video and it helped.");
  });
});
