/**
 * @module web/console/themes.test
 * The Themes view's pure helpers: ranking, sentiment shares that add up to 100, the weekly
 * trend with empty weeks filled, change words, the quote span text and which quotes play.
 */
import { describe, expect, test } from "bun:test";
import { changeText, formatSpan, isPlayable, rankThemes, sentimentShares, themeInboxHref, weeklySeries, type Quote, type Theme } from "./themes.ts";

const theme = (label: string, size: number): Theme => ({
  uuid: label,
  question_uuid: "q",
  label,
  label_source: "auto",
  description: null,
  pinned: false,
  keyphrases: [],
  size,
  share: 0,
  sentiment: { positive: 0, neutral: 0, negative: 0 },
  actionable: 0,
  first_seen: null,
  last_seen: null,
  weekly: [],
  quotes: [],
  date_created: "",
  date_updated: "",
});

describe("themes view helpers", () => {
  test("themes rank largest first, ties by label", () => {
    expect(rankThemes([theme("b", 2), theme("c", 9), theme("a", 2)]).map((t) => t.label)).toEqual(["c", "a", "b"]);
  });

  test("sentiment shares are whole percentages adding up to 100", () => {
    expect(sentimentShares({ positive: 1, neutral: 1, negative: 1 })).toEqual({ positive: 34, neutral: 33, negative: 33 });
    expect(sentimentShares({ positive: 2, neutral: 0, negative: 1 })).toEqual({ positive: 67, neutral: 0, negative: 33 });
    expect(sentimentShares({ positive: 0, neutral: 0, negative: 0 })).toEqual({ positive: 0, neutral: 0, negative: 0 });
  });

  test("the weekly trend fills missing weeks with zero and keeps the latest weeks", () => {
    const s = weeklySeries([
      { week_start: "2026-11-16", count: 4 },
      { week_start: "2026-11-02", count: 1 },
    ]);
    expect(s.y).toEqual([1, 0, 4]);
    expect(s.x.map((t) => new Date(t * 1000).toISOString().slice(0, 10))).toEqual(["2026-11-02", "2026-11-09", "2026-11-16"]);
    expect(
      weeklySeries(
        [
          { week_start: "2026-01-05", count: 1 },
          { week_start: "2026-11-16", count: 2 },
        ],
        3,
      ).y,
    ).toEqual([0, 0, 2]);
    expect(weeklySeries([{ week_start: "2026-11-16", count: 2 }], 26, 3).y).toEqual([0, 0, 2]);
    expect(weeklySeries([])).toEqual({ x: [], y: [] });
  });

  test("change against the previous period", () => {
    expect(changeText(5, 2)).toBe("+3");
    expect(changeText(1, 4)).toBe("−3");
    expect(changeText(2, 2)).toBe("±0");
    expect(changeText(3, 0)).toBe("new");
  });

  test("a quote's span and whether it plays", () => {
    expect(formatSpan(3.21, 67.9)).toBe("0:03.2–1:07.9");
    const typed: Quote = { answer_uuid: "a", response_uuid: "r", text: "t", start_s: null, end_s: null, audio_url: null };
    expect(isPlayable(typed)).toBe(false);
    expect(isPlayable({ ...typed, start_s: 1, end_s: 2.5, audio_url: "http://x/a" })).toBe(true);
    expect(isPlayable({ ...typed, start_s: 2, end_s: 2, audio_url: "http://x/a" })).toBe(false);
  });

  test("show these answers opens the link's inbox filtered by the theme", () => {
    expect(themeInboxHref("L", "T 1")).toBe("/console/links/L/responses/?theme=T%201");
  });
});
