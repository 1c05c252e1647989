/**
 * @module mcp/bounds
 * Paging and size bounds of the MCP tools' results (docs/mcp.md "Bounds"). A local model reads
 * every character a tool returns, so each result is at most {@link MAX_RESULT_CHARS} characters
 * of JSON: a list page keeps the items that fit and continues with `next_cursor`; a single object
 * (or a first item) larger than the cap has its long strings and arrays cut, and the result says
 * what was cut. Cursors are opaque to the client: the base64url of the next item's offset.
 */
import { AppError } from "../../errors.ts";

/** The most characters of JSON one tool result carries (about 5,000 tokens). */
export const MAX_RESULT_CHARS = 20_000;
/** Items a list tool returns when `limit` is not given. */
export const DEFAULT_LIMIT = 10;
/** The largest `limit` a list tool accepts. */
export const MAX_LIMIT = 50;

/** Ever tighter cuts for an object over the cap: strings to `chars` characters, arrays to `items` items. */
const CUTS = [
  { chars: 2_000, items: 100 },
  { chars: 500, items: 25 },
  { chars: 120, items: 5 },
] as const;

/** What a tool answers: its JSON text, and a sentence saying what was cut or left for the next call. */
export type Bounded = { json: string; note: string | null };

/**
 * The offset a cursor stands for (0 without one).
 * @throws AppError VALIDATION_ERROR (pointer `/cursor`) for a cursor this server did not hand out
 */
export function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined || cursor === "") return 0;
  const text = /^[A-Za-z0-9_-]{1,16}$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  if (!/^\d{1,9}$/.test(text)) {
    throw new AppError("VALIDATION_ERROR", "The cursor is not one this server returned; start without it.", {
      errors: [{ pointer: "/cursor", message: "Unknown cursor." }],
    });
  }
  return Number(text);
}

/** The cursor of the item at `offset`. */
export function cursorAt(offset: number): string {
  return Buffer.from(String(offset)).toString("base64url");
}

/** `value` with strings longer than `chars` and arrays longer than `items` cut; `cut` counts what was cut. */
function cutDown(value: unknown, chars: number, items: number, cut: { strings: number; arrays: number }): unknown {
  if (typeof value === "string") {
    if (value.length <= chars) return value;
    cut.strings++;
    return `${value.slice(0, chars)}…`;
  }
  if (Array.isArray(value)) {
    if (value.length > items) cut.arrays++;
    return value.slice(0, items).map((v) => cutDown(v, chars, items, cut));
  }
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutDown(v, chars, items, cut)]));
  }
  return value;
}

/**
 * `value` as it fits in `budget` characters of JSON: whole, or cut by the first of {@link CUTS}
 * that fits, or (past the last) only its `uuid` and a note.
 * @returns the value to serialise and what was cut (null when nothing was)
 */
function fitValue(value: unknown, budget: number): { value: unknown; note: string | null } {
  if (JSON.stringify(value).length <= budget) return { value, note: null };
  for (const { chars, items } of CUTS) {
    const cut = { strings: 0, arrays: 0 };
    const smaller = cutDown(value, chars, items, cut);
    if (JSON.stringify(smaller).length <= budget) {
      const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
      const what = [
        cut.strings && `${plural(cut.strings, "string")} cut to ${chars} characters`,
        cut.arrays && `${plural(cut.arrays, "list")} cut to ${items} items`,
      ];
      return { value: smaller, note: `${what.filter(Boolean).join(" and ")} to fit the ${MAX_RESULT_CHARS}-character cap (marked …)` };
    }
  }
  const uuid = value && typeof value === "object" && "uuid" in value ? (value as { uuid: unknown }).uuid : null;
  return {
    value: { uuid, omitted: true },
    note: `an item too large for the ${MAX_RESULT_CHARS}-character cap even when cut was left out; read it by its uuid`,
  };
}

/**
 * One object (a response, statistics, a summary) within the cap.
 * @returns its JSON and, when something was cut, a sentence saying what
 */
export function boundObject(value: unknown): Bounded {
  const fit = fitValue(value, MAX_RESULT_CHARS);
  return { json: JSON.stringify(fit.value), note: fit.note && `Truncated: ${fit.note}.` };
}

/**
 * One page of a list within the cap: `{count, next_cursor, results}`. Items are kept in order while
 * they fit; the first one is cut down when it alone is over the cap. `next_cursor` points after
 * the last item kept (null at the end of the list).
 * @param offset the offset of `items[0]` in the whole list of `count`
 */
export function boundPage(items: readonly unknown[], count: number, offset: number): Bounded {
  // Room for the envelope around the results: `{"count":…,"next_cursor":"…","results":[]}`.
  const budget = MAX_RESULT_CHARS - 80;
  const kept: unknown[] = [];
  let used = 0;
  let note: string | null = null;
  for (const item of items) {
    const size = JSON.stringify(item).length + 1;
    if (used + size <= budget) {
      kept.push(item);
      used += size;
      continue;
    }
    if (kept.length === 0) {
      const fit = fitValue(item, budget);
      kept.push(fit.value);
      note = fit.note;
    }
    break;
  }
  const next = offset + kept.length < count ? cursorAt(offset + kept.length) : null;
  const notes: string[] = [];
  if (note) notes.push(`the first item: ${note}`);
  if (kept.length < items.length)
    notes.push(`${kept.length} of the ${items.length} items asked for fit in ${MAX_RESULT_CHARS} characters; continue with next_cursor`);
  return {
    json: JSON.stringify({ count, next_cursor: next, results: kept }),
    note: notes.length ? `Truncated: ${notes.join("; ")}.` : null,
  };
}
