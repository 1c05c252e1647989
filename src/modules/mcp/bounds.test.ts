/**
 * The MCP results' bounds (mcp/bounds.ts; docs/mcp.md "Bounds"): every result within the cap,
 * what was cut said, pages continuing exactly after the last item kept, cursors checked.
 * Pure functions over plain data (no database: the same on both engines).
 */
import { expect, test } from "bun:test";
import { AppError } from "../../errors.ts";
import { MAX_RESULT_CHARS, boundObject, boundPage, cursorAt, offsetOf } from "./bounds.ts";

test("an object within the cap is returned whole, with no note", () => {
  const value = { uuid: "a", answers: [{ text: "short" }] };
  expect(boundObject(value)).toEqual({ json: JSON.stringify(value), note: null });
});

test("an object over the cap has its long strings cut, marked, and the note says so", () => {
  const out = boundObject({ uuid: "a", answers: [{ text: "x".repeat(3 * MAX_RESULT_CHARS), value: "kept" }] });
  expect(out.json.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
  const parsed = JSON.parse(out.json);
  expect(parsed.answers[0].text).toBe(`${"x".repeat(2_000)}…`);
  expect(parsed.answers[0].value).toBe("kept");
  expect(out.note).toBe("Truncated: 1 string cut to 2000 characters to fit the 20000-character cap (marked …).");
});

test("long lists are shortened when cutting strings is not enough", () => {
  const out = boundObject({ uuid: "a", over_time: Array.from({ length: 5_000 }, (_, i) => ({ date: `day ${i}`, n: i })) });
  expect(out.json.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
  expect(JSON.parse(out.json).over_time).toHaveLength(100);
  expect(out.note).toContain("1 list cut to 100 items");
});

test("an object too large even when cut is replaced by its uuid and a note", () => {
  const wide = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`field_${i}`, "abcdefghij"]));
  const out = boundObject({ uuid: "r-1", ...wide });
  expect(JSON.parse(out.json)).toEqual({ uuid: "r-1", omitted: true });
  expect(out.note).toContain("read it by its uuid");
});

test("a page keeps the items that fit and continues right after them", () => {
  const items = Array.from({ length: 10 }, (_, i) => ({ uuid: `r-${i}`, text: "y".repeat(3_000) }));
  const out = boundPage(items, 40, 20);
  expect(out.json.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
  const parsed = JSON.parse(out.json);
  expect(parsed.count).toBe(40);
  expect(parsed.results.map((r: { uuid: string }) => r.uuid)).toEqual(["r-0", "r-1", "r-2", "r-3", "r-4", "r-5"]);
  expect(offsetOf(parsed.next_cursor)).toBe(26);
  expect(out.note).toBe("Truncated: 6 of the 10 items asked for fit in 20000 characters; continue with next_cursor.");
});

test("the last page has no cursor and no note; a first item over the cap is cut, not dropped", () => {
  const last = JSON.parse(boundPage([{ uuid: "a" }, { uuid: "b" }], 12, 10).json);
  expect(last).toEqual({ count: 12, next_cursor: null, results: [{ uuid: "a" }, { uuid: "b" }] });
  const big = boundPage([{ uuid: "huge", text: "z".repeat(50_000) }, { uuid: "next" }], 2, 0);
  const parsed = JSON.parse(big.json);
  expect(parsed.results).toHaveLength(1);
  expect(parsed.results[0].text.length).toBe(2_001);
  expect(offsetOf(parsed.next_cursor)).toBe(1);
  expect(big.note).toContain("the first item: 1 string cut to 2000 characters");
});

test("cursors round-trip; anything else is a VALIDATION_ERROR at /cursor", () => {
  expect(offsetOf(undefined)).toBe(0);
  expect(offsetOf(cursorAt(0))).toBe(0);
  expect(offsetOf(cursorAt(123_456))).toBe(123_456);
  for (const bad of ["not a cursor", Buffer.from("-1").toString("base64url"), Buffer.from("1e3").toString("base64url"), "x".repeat(40)]) {
    try {
      offsetOf(bad);
      throw new Error(`accepted ${bad}`);
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("VALIDATION_ERROR");
      expect((err as AppError).errors?.[0]?.pointer).toBe("/cursor");
    }
  }
});
