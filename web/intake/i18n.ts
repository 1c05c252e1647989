/**
 * @module web/intake/i18n
 * The page's words come from one message catalog per language (`web/intake/i18n/<lang>.json`,
 * docs/intake.md "Languages"). The server embeds the catalog in use in the page; switching
 * language fetches another one from `/assets/intake/i18n/<lang>.json`, so only catalogs in use
 * are ever loaded. Plurals use `Intl.PluralRules`, numbers, sizes, durations and dates
 * `Intl.NumberFormat` / `Intl.DateTimeFormat` / `Intl.ListFormat` of the current language.
 *
 * A catalog maps a key to a string with `{name}` placeholders, or (plurals) to an object of
 * CLDR plural categories (`zero`, `one`, `two`, `few`, `many`, `other`) chosen by `count`.
 */
export type MessageKey = keyof typeof import("./i18n/en.json");
export type Catalog = Record<string, string | Partial<Record<Intl.LDMLPluralRule, string>>>;
type Params = Record<string, string | number>;

/** Languages with a catalog, and each one's name in its own language (the switcher's options). */
export const LANGUAGE_NAMES: Record<string, string> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
  it: "Italiano",
  nl: "Nederlands",
  pt: "Português",
  pl: "Polski",
  ar: "العربية",
};

const RTL_LANGUAGES = new Set(["ar", "he", "fa", "ur"]);

let current = "en";
let messages: Catalog = {};
let plurals = new Intl.PluralRules("en");
let numbers = new Intl.NumberFormat("en");

/** Makes `catalog` (of language `lang`) the one every later `t()` reads. */
export function setLanguage(lang: string, catalog: Catalog): void {
  current = lang;
  messages = catalog;
  plurals = new Intl.PluralRules(lang);
  numbers = new Intl.NumberFormat(lang);
}

/** The language in use (a catalog's tag, e.g. `de`). */
export function language(): string {
  return current;
}

/** `rtl` for right-to-left scripts (Arabic, Hebrew, Persian, Urdu), else `ltr`. */
export function direction(lang: string = current): "rtl" | "ltr" {
  return RTL_LANGUAGES.has(lang.split("-")[0]!.toLowerCase()) ? "rtl" : "ltr";
}

/**
 * The message `key` in the current language, `{name}` replaced by `params` (numbers formatted
 * for the language). A plural message picks its form by `params.count`.
 * @returns the key itself when the catalog lacks it (the catalog test prevents that)
 */
export function t(key: MessageKey, params: Params = {}): string {
  const entry = messages[key];
  let text: string;
  if (typeof entry === "string") text = entry;
  else if (entry) text = entry[plurals.select(Number(params.count ?? 0))] ?? entry.other ?? key;
  else text = key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined) return whole;
    return typeof value === "number" ? numbers.format(value) : value;
  });
}

/** A number as the language writes it (`1.5` → `1,5` in German). */
export function formatNumber(value: number, options?: Intl.NumberFormatOptions): string {
  return options ? new Intl.NumberFormat(current, options).format(value) : numbers.format(value);
}

/** A size in megabytes (`10 MB`, `10 Mo`). */
export function formatMegabytes(mb: number): string {
  return formatNumber(mb, { style: "unit", unit: "megabyte", maximumFractionDigits: 1 });
}

/** A byte count in B, kB or MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return formatNumber(bytes, { style: "unit", unit: "byte" });
  if (bytes < 1024 * 1024) return formatNumber(Math.round(bytes / 1024), { style: "unit", unit: "kilobyte" });
  return formatMegabytes(Math.round((bytes / (1024 * 1024)) * 10) / 10);
}

/** A duration in words: `45` → "45 seconds", `90` → "1.5 minutes" (Intl's plural-aware units). */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return formatNumber(Math.round(seconds), { style: "unit", unit: "second", unitDisplay: "long" });
  return formatNumber(Math.round(seconds / 6) / 10, { style: "unit", unit: "minute", unitDisplay: "long" });
}

/** `75` → `1:15`, digits in the language's numbering system. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${formatNumber(Math.floor(s / 60))}:${formatNumber(s % 60, { minimumIntegerDigits: 2 })}`;
}

/** "a", "a or b", "a, b or c" as the language joins alternatives. */
export function orList(items: string[]): string {
  return new Intl.ListFormat(current, { type: "disjunction" }).format(items);
}

/** A date and time as the language writes it ("23 November 2026, 14:05"). */
export function formatDateTime(date: Date): string {
  return new Intl.DateTimeFormat(current, { dateStyle: "long", timeStyle: "short" }).format(date);
}

/** Upper-cases the first letter for the language (a no-op for scripts without case). */
export function capitalize(text: string): string {
  return text.charAt(0).toLocaleUpperCase(current) + text.slice(1);
}
