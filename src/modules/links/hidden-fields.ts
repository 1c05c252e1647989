/**
 * @module links/hidden-fields
 * Hidden fields (issue 25; DESIGN §13; docs/api.md "Hidden fields"): a link declares
 * `settings.hidden_fields`, names in the form of a `field_key`; the intake URL's query gives their
 * values (`/i/<slug>?order_id=123`), which the page sends when it starts the session and the
 * response keeps as `hidden`. Everything a respondent sends is bounded here.
 */
import { z } from "zod";
import { AppError, type FieldError } from "../../errors.ts";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { FIELD_KEY_PATTERN } from "../../slugs.ts";

/** At most this many hidden fields per link. */
export const MAX_HIDDEN_FIELDS = 20;
/** A hidden value holds at most this many characters (UTF-16 code units, as JavaScript counts). */
export const MAX_HIDDEN_VALUE_CHARS = 500;
/** A session start's `hidden` object may have at most this many members (undeclared ones included). */
export const MAX_HIDDEN_MEMBERS = 100;

/** `settings.hidden_fields` as given: unique field-key-style names, at most {@link MAX_HIDDEN_FIELDS}. */
export const hiddenFieldsInputSchema = lazySchema(() =>
  z
    .array(z.string().max(64).regex(FIELD_KEY_PATTERN, "Use snake_case starting with a letter."))
    .max(MAX_HIDDEN_FIELDS)
    .refine((names) => new Set(names).size === names.length, "Each hidden field may appear only once.")
    .describe(`Names of the values the intake URL's query may carry (issue 25), like field_key; at most ${MAX_HIDDEN_FIELDS}`),
);

/** The declared hidden fields of stored settings (links stored before issue 25 have none). */
export function hiddenFieldsOf(settings: { hidden_fields?: string[] | null }): string[] {
  return settings.hidden_fields ?? [];
}

/**
 * Problems between a link's hidden fields and its questions: a name that is also a question's
 * `field_key` (a condition or a filter could not tell them apart), and a condition whose `field` is
 * neither a question's `field_key` nor a hidden field (PATCH of settings alone).
 */
export function hiddenFieldErrors(hidden: string[], questions: { field_key: string; condition: { field?: unknown } }[]): FieldError[] {
  const keys = new Set(questions.map((q) => q.field_key));
  const errors: FieldError[] = [];
  hidden.forEach((name, i) => {
    if (keys.has(name)) errors.push({ pointer: `/settings/hidden_fields/${i}`, message: `A question has the field_key "${name}".` });
  });
  const names = new Set(hidden);
  questions.forEach((q, i) => {
    const field = q.condition.field;
    if (typeof field === "string" && !keys.has(field) && !names.has(field)) {
      errors.push({ pointer: `/questions/${i}/condition/field`, message: `No question or hidden field is named "${field}".` });
    }
  });
  return errors;
}

/**
 * The hidden values of a session start (`{"hidden": {…}}`, docs/intake.md): only the declared
 * names are kept (others are ignored), empty strings count as not given.
 * @param raw the body's `hidden` member (undefined when absent)
 * @returns the kept values by name (`{}` when none)
 * @throws AppError VALIDATION_ERROR (pointer `/hidden` or `/hidden/<name>`) when `hidden` is not an
 *   object, has more than {@link MAX_HIDDEN_MEMBERS} members, or a declared value is not a string,
 *   is longer than {@link MAX_HIDDEN_VALUE_CHARS} characters or holds a control character
 */
export function checkHiddenValues(declared: readonly string[], raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new AppError("VALIDATION_ERROR", "hidden must be an object of strings.", { errors: [{ pointer: "/hidden", message: "Expected an object." }] });
  }
  const entries = Object.entries(raw);
  if (entries.length > MAX_HIDDEN_MEMBERS) {
    throw new AppError("VALIDATION_ERROR", `hidden may have at most ${MAX_HIDDEN_MEMBERS} members.`, {
      errors: [{ pointer: "/hidden", message: `At most ${MAX_HIDDEN_MEMBERS} members.` }],
    });
  }
  const out: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const [name, value] of entries) {
    if (!declared.includes(name)) continue;
    const pointer = `/hidden/${name}`;
    if (typeof value !== "string") errors.push({ pointer, message: "Expected a string." });
    else if (value.length > MAX_HIDDEN_VALUE_CHARS) errors.push({ pointer, message: `At most ${MAX_HIDDEN_VALUE_CHARS} characters.` });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    else if (/[\u0000-\u001f\u007f]/.test(value)) errors.push({ pointer, message: "Control characters are not allowed." });
    else if (value !== "") out[name] = value;
  }
  if (errors.length) throw new AppError("VALIDATION_ERROR", `A hidden value is not valid: ${errors[0]!.pointer} ${errors[0]!.message}`, { errors });
  return out;
}
