/**
 * A quote's place in its recording (DESIGN §12 quotes: start_s, end_s): the segments its words
 * fall in, the whole recording when its words are not in the transcript, nothing without segments;
 * and the ISO week of the weekly counts.
 */
import { expect, test } from "bun:test";
import { quoteSpan, weekStart } from "./records.ts";

const SEGMENTS = [
  { start_s: 0, end_s: 2, text: "Well, the checkout was slow." },
  { start_s: 2, end_s: 5.5, text: "And the shipping cost" },
  { start_s: 5.5, end_s: 7, text: "was far too high." },
];

test("a quote spans the segments its words fall in", () => {
  expect(quoteSpan(SEGMENTS, "The checkout was slow.")).toEqual({ start_s: 0, end_s: 2 });
  expect(quoteSpan(SEGMENTS, "And the shipping cost was far too high.")).toEqual({ start_s: 2, end_s: 7 });
});

test("words not in the transcript span the whole recording; no segments, no span", () => {
  expect(quoteSpan(SEGMENTS, "A follow-up answer about refunds.")).toEqual({ start_s: 0, end_s: 7 });
  expect(quoteSpan(null, "anything")).toBeNull();
  expect(quoteSpan([], "anything")).toBeNull();
});

test("weeks start on Monday (UTC)", () => {
  expect(weekStart("2026-11-28T04:10:00.000000Z")).toBe("2026-11-23"); // a Saturday
  expect(weekStart("2026-11-23T00:00:00.000000Z")).toBe("2026-11-23"); // a Monday
  expect(weekStart("2026-11-22T23:59:59.999999Z")).toBe("2026-11-16"); // a Sunday
});
