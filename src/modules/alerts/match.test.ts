/**
 * Matching and message bounds of alerts (alerts/match.ts, alerts/message.ts): the conditions'
 * edges that the end-to-end test (test/integration/alerts.test.ts) does not reach.
 */
import { describe, expect, test } from "bun:test";
import { keywordPattern, type MatchAnswer, matchRule } from "./match.ts";
import { clip, QUOTE_MAX_CHARS } from "./message.ts";

const answer = (over: Partial<MatchAnswer>): MatchAnswer => ({
  uuid: "a",
  text: null,
  sentiment: null,
  actionable: false,
  nps: null,
  themeUuid: null,
  ...over,
});

describe("keyword", () => {
  test("matches whole words and phrases, case-insensitive, in any script", () => {
    expect(keywordPattern("refund").test("I want a REFUND now")).toBe(true);
    expect(keywordPattern("refund").test("refunded already")).toBe(false);
    expect(keywordPattern("refund").test("norefund")).toBe(false);
    expect(keywordPattern("c++").test("the C++ client")).toBe(true);
    expect(keywordPattern("kündigen").test("Ich will KÜNDIGEN.")).toBe(true);
    expect(keywordPattern("kündigen").test("kündigenswert")).toBe(false);
    expect(keywordPattern("keeps crashing").test("it keeps crashing!")).toBe(true);
  });
});

describe("matchRule", () => {
  const labels = new Map([["t1", "Pricing"]]);
  test("NPS 0–6 are detractors, 7 is not", () => {
    expect(matchRule([{ type: "nps_detractor" }], "any", [answer({ nps: 6 })])?.reasons).toEqual(["NPS detractor (6/10)"]);
    expect(matchRule([{ type: "nps_detractor" }], "any", [answer({ nps: 0 })])).not.toBeNull();
    expect(matchRule([{ type: "nps_detractor" }], "any", [answer({ nps: 7 })])).toBeNull();
  });
  test("a theme condition names the theme's label; any vs all", () => {
    const answers = [answer({ uuid: "x", text: "too expensive", themeUuid: "t1" }), answer({ uuid: "y", sentiment: "negative" })];
    const any = matchRule([{ type: "theme", theme_uuid: "t1" }, { type: "actionable" }], "any", answers, labels);
    expect(any?.reasons).toEqual(["Theme “Pricing”"]);
    expect(any?.quoteAnswer?.uuid).toBe("x");
    expect(matchRule([{ type: "theme", theme_uuid: "t1" }, { type: "actionable" }], "all", answers, labels)).toBeNull();
    expect(matchRule([{ type: "theme", theme_uuid: "t1" }, { type: "negative" }], "all", answers, labels)?.reasons).toEqual([
      "Theme “Pricing”",
      "Negative sentiment",
    ]);
  });
});

test("a quote is bounded, on a word boundary, with newlines flattened", () => {
  const long = `${"word ".repeat(200)}end`;
  const q = clip(long, QUOTE_MAX_CHARS);
  expect([...q].length).toBeLessThanOrEqual(QUOTE_MAX_CHARS);
  expect(q.endsWith("word…")).toBe(true);
  expect(clip("a\n\nb", 10)).toBe("a b");
  expect(clip("😀".repeat(300), 10)).toBe(`${"😀".repeat(9)}…`);
});
