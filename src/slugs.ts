/**
 * @module slugs
 * Slugs and field keys (DESIGN §6), built on @sindresorhus/slugify for transliteration.
 */
import type slugifyFunction from "@sindresorhus/slugify";

// Loaded at first use: its transliteration tables are built when the module is evaluated, ~10 ms
// of every start otherwise (bench/startup.ts), and `serve` needs a slug only when one is created.
let loaded: typeof slugifyFunction | null = null;
const slugify: typeof slugifyFunction = (text, options) =>
  (loaded ??= (require("@sindresorhus/slugify") as { default: typeof slugifyFunction }).default)(text, options);

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const FIELD_KEY_PATTERN = /^[a-z][a-z0-9_]*$/;

/** Kebab-case ASCII slug of `text`, at most `max` characters; `fallback` when nothing is left. */
export function toSlug(text: string, max = 64, fallback = "link"): string {
  const s = slugify(text, { lowercase: true, decamelize: false }).slice(0, max).replace(/-+$/, "");
  return s || fallback;
}

/** snake_case ASCII key of `text` starting with a letter, at most 64 characters. */
export function toFieldKey(text: string): string {
  let s = slugify(text, { separator: "_", lowercase: true, decamelize: false }).replace(/[^a-z0-9_]/g, "");
  if (!/^[a-z]/.test(s)) s = `q_${s}`;
  return s.slice(0, 64).replace(/_+$/, "") || "q";
}

/**
 * First free variant of `base` given the names already taken: `base`, `base{sep}2`, `base{sep}3`, …
 * kept within `max` characters.
 */
export function uniqueVariant(base: string, taken: Iterable<string>, sep: "-" | "_", max = 64): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `${sep}${n}`;
    const candidate = base.slice(0, max - suffix.length).replace(/[-_]+$/, "") + suffix;
    if (!used.has(candidate)) return candidate;
  }
}
