/**
 * @module db/json
 * Reading inside JSON text columns (answers' `value` and `ai_insights`) for filters and
 * aggregates (issue 11). SQLite's JSON1 functions and PostgreSQL's `jsonb` operators are used here
 * and only here (with `db/search.ts` for full-text search); each helper takes the database (or
 * transaction) to pick its engine's SQL. The columns stay JSON text on both engines; PostgreSQL
 * reads them as `column::jsonb`. Every helper returns an SQL fragment over a column reference
 * such as `a.ai_insights`.
 */
import { type Kysely, type RawBuilder, sql, type Transaction } from "kysely";
import { isPostgres } from "./dialect.ts";

type Q = Kysely<any> | Transaction<any>;

/** A JSON path such as `$.sentiment` (only these literal forms are produced by callers). */
export type JsonPath = `$${string}`;

/** `$.a.b[0]` as PostgreSQL's text-array path literal `{a,b,0}`. */
function pgPath(path: JsonPath): string {
  const parts = path.slice(1).match(/[^.[\]]+/g) ?? [];
  return `{${parts.join(",")}}`;
}

function checkPath(path: JsonPath): void {
  if (!/^\$[\w.[\]]*$/.test(path)) throw new Error(`unexpected JSON path ${path}`);
}

/** PostgreSQL: the JSON at `path` of `column` as `jsonb` (SQL NULL when absent). */
function pgJson(column: string, path: JsonPath): RawBuilder<unknown> {
  return path === "$" ? sql`(${sql.ref(column)})::jsonb` : sql`((${sql.ref(column)})::jsonb #> ${sql.lit(pgPath(path))})`;
}

/**
 * The scalar at `path` of the JSON in `column` (SQL NULL when absent or JSON null). On SQLite JSON
 * true/false read 1/0 and numbers read as numbers; on PostgreSQL every value reads as its text
 * (`true`, `3`, a string without quotes, an array as its JSON text) — compare only with strings,
 * or use {@link jsonFlagIs} / {@link jsonNumber}.
 * The path is written as a literal (paths come from code, never from a request), so the
 * expression matches the expression indexes of migration 2026-11-26T0101 and is served by them.
 */
export function jsonValue<T = unknown>(db: Q, column: string, path: JsonPath): RawBuilder<T> {
  checkPath(path);
  if (isPostgres(db)) return sql<T>`((${sql.ref(column)})::jsonb #>> ${sql.lit(pgPath(path))})`;
  return sql<T>`json_extract(${sql.ref(column)}, ${sql.lit(path)})`;
}

/** True when the JSON boolean at `path` of `column` equals `expected` (absent counts as neither). */
export function jsonFlagIs(db: Q, column: string, path: JsonPath, expected: boolean): RawBuilder<boolean> {
  if (isPostgres(db)) return sql<boolean>`(${jsonValue(db, column, path)} = ${sql.lit(expected ? "true" : "false")})`;
  return sql<boolean>`(${jsonValue(db, column, path)} = ${sql.lit(expected ? 1 : 0)})`;
}

/**
 * True when the JSON at `path` of `column` may contain `text` (case-insensitive LIKE on its
 * JSON text), a cheap test to run before {@link jsonHasText}; always true when `text` has
 * characters JSON escapes or LIKE treats specially.
 */
export function jsonMayContain(db: Q, column: string, path: JsonPath, text: string): RawBuilder<boolean> {
  if (/["\\\u0000-\u001f%_]/.test(text)) return sql<boolean>`1 = 1`;
  if (isPostgres(db)) return sql<boolean>`(${jsonValue(db, column, path)} ILIKE ${`%${text}%`})`;
  return sql<boolean>`(${jsonValue(db, column, path)} LIKE ${`%${text}%`})`;
}

/** `json_each` over the JSON at `path` of `column`, written so an expression index on `json_extract(column, path)` serves it. */
function eachOf(db: Q, column: string, path: JsonPath): RawBuilder<unknown> {
  return path === "$" ? sql`json_each(${sql.ref(column)})` : sql`json_each(${jsonValue(db, column, path)})`;
}

/**
 * PostgreSQL: one row per element of the array at `path` (one for a scalar, none for null or
 * absent), as `jsonb` column `e`.
 */
function pgElements(column: string, path: JsonPath): RawBuilder<unknown> {
  const j = pgJson(column, path);
  return sql`jsonb_array_elements(CASE jsonb_typeof(${j}) WHEN 'array' THEN ${j} WHEN 'null' THEN '[]'::jsonb ELSE coalesce(jsonb_build_array(${j}), '[]'::jsonb) END)`;
}

/**
 * True when the JSON at `path` of `column` is a string equal to `text`, or an array holding such a
 * string, ignoring case (choice values, `key_topics`).
 */
export function jsonHasText(db: Q, column: string, path: JsonPath, text: string): RawBuilder<boolean> {
  if (isPostgres(db)) {
    return sql<boolean>`EXISTS (SELECT 1 FROM ${pgElements(column, path)} AS je(e) WHERE jsonb_typeof(je.e) = 'string' AND lower(je.e #>> '{}') = lower(${text}))`;
  }
  return sql<boolean>`EXISTS (SELECT 1 FROM ${eachOf(db, column, path)} AS je WHERE je.type = 'text' AND lower(je.value) = lower(${text}))`;
}

/** The JSON text in `column` read as a number (for ranges over numeric answers' `value`); PostgreSQL: NULL when not a JSON number. */
export function jsonNumber(db: Q, column: string): RawBuilder<number> {
  if (isPostgres(db)) {
    const j = pgJson(column, "$");
    return sql<number>`(CASE WHEN jsonb_typeof(${j}) = 'number' THEN (${j} #>> '{}')::double precision END)`;
  }
  return sql<number>`CAST(json_extract(${sql.ref(column)}, '$') AS REAL)`;
}

/**
 * A table expression with one row per element of the array at `path` of `column` (one row for a
 * scalar; none for null or absent), columns `value` and `type` (`text` for strings; SQLite also
 * `integer`, `real`, `true`, `false`, …, PostgreSQL `number`, `boolean`, …). Strings' `value` is
 * the string on both engines. Use it in a `FROM`/`JOIN` with an alias (a lateral subquery on
 * PostgreSQL).
 */
export function jsonElements(db: Q, column: string, path: JsonPath = "$"): RawBuilder<{ value: unknown; type: string }> {
  if (isPostgres(db)) {
    return sql<{
      value: unknown;
      type: string;
    }>`LATERAL (SELECT el.e #>> '{}' AS value, CASE jsonb_typeof(el.e) WHEN 'string' THEN 'text' ELSE jsonb_typeof(el.e) END AS type FROM ${pgElements(column, path)} AS el(e))`;
  }
  return eachOf(db, column, path) as RawBuilder<{ value: unknown; type: string }>;
}

/**
 * A boolean SQL expression usable in WHERE on both engines, written as given: SQLite compares a
 * boolean expression's 0/1 with `= 1` where an index expression needs it; PostgreSQL has real
 * booleans and takes the expression itself.
 */
export function isTrue(db: Q, expression: RawBuilder<unknown>): RawBuilder<boolean> {
  return isPostgres(db) ? sql<boolean>`(${expression})` : sql<boolean>`(${expression} = 1)`;
}
