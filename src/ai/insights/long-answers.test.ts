/**
 * Long spoken answers (issue 16): a 2-minute transcript with fillers gets an extractive summary
 * of at most two filler-free sentences and topics a person would use; fillers and false starts
 * are removed before topics and summaries are taken.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { removeDisfluencies } from "./disfluency.ts";
import { createInsightsEngine } from "./index.ts";

const LONG_DIR = path.resolve(import.meta.dir, "../../../corpus/insights/long");
const FILLER = /\b(?:um+|uh+|erm+|you know)\b|,\s*like,/i;

function transcript(file: string): { text: string; topics: string[] } {
  const [head, text] = readFileSync(path.join(LONG_DIR, file), "utf8").split("\n---\n") as [string, string];
  return {
    text,
    topics: /^topics: (.*)$/m
      .exec(head)![1]!
      .split(";")
      .map((t) => t.trim()),
  };
}

describe("removeDisfluencies", () => {
  test("drops fillers, comma-set markers, openers and false starts", () => {
    expect(removeDisfluencies("Okay, so, um, it was, you know, it was fine, and the, the app is, like, slow.")).toBe("It was fine, and the app is slow.");
    expect(removeDisfluencies("Maybe, uh, maybe a note on the booking.")).toBe("Maybe a note on the booking.");
  });

  test("leaves typed answers and meaningful hedges alone", () => {
    expect(removeDisfluencies("The checkout was kind of weird I guess.")).toBe("The checkout was kind of weird I guess.");
    expect(removeDisfluencies("I like the new dashboard.")).toBe("I like the new dashboard.");
  });
});

describe("a 2-minute transcript", () => {
  const engine = createInsightsEngine({ modelsDir: "/nonexistent/models", sentimentModel: "(none)" });
  for (const file of ["01-apps.txt", "12-employee.txt", "20-hardware.txt"]) {
    test(`${file}: two filler-free sentences and topics from what was said`, async () => {
      const { text, topics: expected } = transcript(file);
      expect(text.split(/\s+/).length).toBeGreaterThanOrEqual(300);
      const { ai_insights } = await engine.analyse(text);
      const sentences = ai_insights.summary.split(/(?<=[.!?…])\s+/).filter((s) => s.trim() !== "");
      expect(sentences.length).toBeGreaterThanOrEqual(1);
      expect(sentences.length).toBeLessThanOrEqual(2);
      expect(ai_insights.summary).not.toMatch(FILLER);
      expect(ai_insights.key_topics.length).toBeGreaterThan(0);
      for (const topic of ai_insights.key_topics) expect(topic).not.toMatch(FILLER);
      const words = expected.join(" ").split(/\s+/);
      expect(ai_insights.key_topics.some((t) => t.split(" ").some((w) => words.includes(w)))).toBe(true);
    });
  }
});
