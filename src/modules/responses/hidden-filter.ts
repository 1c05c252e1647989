/**
 * @module responses/hidden-filter
 * The hidden-field filters of the response lists and exports (issue 25; docs/api.md "Hidden
 * fields"): `hidden.<name>=<value>` query parameters, each an exact match of the response's
 * hidden value (case-sensitive); several must all hold.
 */
import { AppError, type FieldError } from "../../errors.ts";
import { FIELD_KEY_PATTERN } from "../../slugs.ts";
import { MAX_HIDDEN_FIELDS, MAX_HIDDEN_VALUE_CHARS } from "../links/hidden-fields.ts";

const PREFIX = "hidden.";

/**
 * The `hidden.<name>` parameters of a query string, by name.
 * @returns `{}` when none
 * @throws AppError VALIDATION_ERROR (pointer `/hidden.<name>`) for a name that is not field-key
 *   style (≤ 64), a value longer than {@link MAX_HIDDEN_VALUE_CHARS}, a repeated parameter, or
 *   more than {@link MAX_HIDDEN_FIELDS} of them
 */
export function hiddenFiltersOf(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const errors: FieldError[] = [];
  const given = Object.entries(query).filter(([k]) => k.startsWith(PREFIX));
  if (given.length > MAX_HIDDEN_FIELDS) errors.push({ pointer: "/hidden", message: `At most ${MAX_HIDDEN_FIELDS} hidden-field filters.` });
  for (const [key, value] of given.slice(0, MAX_HIDDEN_FIELDS)) {
    const name = key.slice(PREFIX.length);
    const pointer = `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (name.length > 64 || !FIELD_KEY_PATTERN.test(name)) errors.push({ pointer, message: "Use a hidden field's name (snake_case)." });
    else if (typeof value !== "string") errors.push({ pointer, message: "Give each hidden-field filter once." });
    else if (value.length > MAX_HIDDEN_VALUE_CHARS) errors.push({ pointer, message: `At most ${MAX_HIDDEN_VALUE_CHARS} characters.` });
    else out[name] = value;
  }
  if (errors.length) throw new AppError("VALIDATION_ERROR", `Invalid query parameter: ${errors[0]!.pointer} ${errors[0]!.message}`, { errors });
  return out;
}
