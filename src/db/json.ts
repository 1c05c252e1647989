/**
 * @module db/json
 * Reading inside JSON text columns (answers' `value` and `ai_insights`) for filters and
 * aggregates (issue 11). SQLite's JSON1 functions are used here and only here (with
 * `db/search.ts` for FTS5), so a PostgreSQL dialect swaps this file for `jsonb` operators.
 * Every helper returns an SQL fragment over a column reference such as `a.ai_insights`.
 */
import { type RawBuilder, sql } from "kysely";

/** A JSON path such as `$.sentiment` (only these literal forms are produced by callers). */
export type JsonPath = `$${string}`;

/**
 * The scalar at `path` of the JSON in `column` (SQL NULL when absent); JSON true/false read 1/0.
 * The path is written as a literal (paths come from code, never from a request), so the
 * expression matches the expression indexes of migration 2026-11-26T0101 and is served by them.
 */
export function jsonValue<T = unknown>(column: string, path: JsonPath): RawBuilder<T> {
  if (!/^\$[\w.[\]]*$/.test(path)) throw new Error(`unexpected JSON path ${path}`);
  return sql<T>`json_extract(${sql.ref(column)}, ${sql.lit(path)})`;
}

/** True when the JSON boolean at `path` of `column` equals `expected` (absent counts as neither). */
export function jsonFlagIs(column: string, path: JsonPath, expected: boolean): RawBuilder<boolean> {
  return sql<boolean>`(${jsonValue(column, path)} = ${sql.lit(expected ? 1 : 0)})`;
}

/**
 * True when the JSON at `path` of `column` may contain `text` (ASCII case-insensitive LIKE on its
 * JSON text), a cheap test to run before {@link jsonHasText}; always true when `text` has
 * characters JSON escapes or LIKE treats specially.
 */
export function jsonMayContain(column: string, path: JsonPath, text: string): RawBuilder<boolean> {
  if (/["\\\u0000-\u001f%_]/.test(text)) return sql<boolean>`1 = 1`;
  return sql<boolean>`(${jsonValue(column, path)} LIKE ${`%${text}%`})`;
}

/** `json_each` over the JSON at `path` of `column`, written so an expression index on `json_extract(column, path)` serves it. */
function eachOf(column: string, path: JsonPath): RawBuilder<unknown> {
  return path === "$" ? sql`json_each(${sql.ref(column)})` : sql`json_each(${jsonValue(column, path)})`;
}

/**
 * True when the JSON at `path` of `column` is a string equal to `text`, or an array holding such a
 * string, ignoring ASCII case (choice values, `key_topics`).
 */
export function jsonHasText(column: string, path: JsonPath, text: string): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (SELECT 1 FROM ${eachOf(column, path)} AS je WHERE je.type = 'text' AND lower(je.value) = lower(${text}))`;
}

/** The JSON text in `column` read as a number (for ranges over numeric answers' `value`). */
export function jsonNumber(column: string): RawBuilder<number> {
  return sql<number>`CAST(json_extract(${sql.ref(column)}, '$') AS REAL)`;
}

/**
 * A table expression with one row per element of the array at `path` of `column` (one row for a
 * scalar; none for null or absent), columns `value` (booleans as 1/0) and `type` (`text`,
 * `integer`, `real`, `true`, `false`, …). Use it in a `FROM`/`JOIN` with an alias.
 */
export function jsonElements(column: string, path: JsonPath = "$"): RawBuilder<{ value: unknown; type: string }> {
  return eachOf(column, path) as RawBuilder<{ value: unknown; type: string }>;
}
