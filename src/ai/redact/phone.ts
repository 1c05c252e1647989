/**
 * @module ai/redact/phone
 * Phone numbers via libphonenumber-js (Google's libphonenumber metadata, "max" set so validity is
 * checked per number range) (issue 25; docs/decisions/redaction.md "Phone numbers").
 */
import { type CountryCode, findNumbers } from "libphonenumber-js/max";
import type { PiiSpan } from "./types.ts";

/** Countries whose national numbers (without +) are looked for when the caller names none. */
export const DEFAULT_PHONE_COUNTRIES: readonly CountryCode[] = ["GB", "US"];

// Words that say the digits after them are not a phone number ("order 4839201", "account id 7731982244").
const NOT_PHONE_BEFORE =
  /\b(?:order|ticket|ref|reference|invoice|id|account|customer|serial|tracking|booking|code|pin|postcode|zip|room|flight|version|build|release|no\.?|#)\W{0,3}(?:number|no\.?|#|is|was|:)?\W{0,3}$/i;
const DIGITS = /\d/g;
// Where a phone number may be: a run of digit groups with the separators people write. The
// matcher reads only these segments, and only those with 7 to 15 digits (E.164 allows at most 15;
// a longer run is a card, an account or two numbers glued, which we would drop as glued anyway),
// so its work stays linear ("1 1 1 …" made libphonenumber's scan of a window take seconds).
const SEGMENT = /(?<![\d+])(?:\+|\(\s?)?\d(?:[ \t().\/-]{0,3}\d)*\)?/g;

/** True when the match is one group of a longer run of digit groups (a card, a date, an account). */
function gluedToDigits(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - 2), start);
  const after = text.slice(end, end + 2);
  return /\d[ ./-]?$/.test(before) || /^[ ./-]?\d/.test(after);
}

/**
 * Phone numbers in `text`: international ones (with + or 00) in any country, national ones in
 * `countries`. A match is kept when libphonenumber finds it valid for its country, or when it is
 * written like a phone number (leading +, 0 trunk prefix or parenthesised area code) and has a
 * possible length; it is dropped when it sits inside a longer digit run or after a word naming
 * another kind of number (order, ticket, account id …).
 * @param countries ISO 3166-1 alpha-2 codes; default {@link DEFAULT_PHONE_COUNTRIES}.
 */
export function findPhones(text: string, countries: readonly CountryCode[] = DEFAULT_PHONE_COUNTRIES): PiiSpan[] {
  const spans: PiiSpan[] = [];
  const seen = new Set<string>();
  for (const segment of text.matchAll(SEGMENT)) {
    const digits = segment[0].match(DIGITS)?.length ?? 0;
    if (digits < 7 || digits > 15) continue;
    for (const country of countries) spans.push(...inSegment(text, segment.index, segment[0], country, seen));
  }
  return spans;
}

/** The numbers libphonenumber finds in one segment (at `offset` in `text`) that pass our checks. */
function inSegment(text: string, offset: number, segment: string, country: CountryCode, seen: Set<string>): PiiSpan[] {
  const spans: PiiSpan[] = [];
  // `leniency` is libphonenumber's own option (Leniency.js); the typings omit it. POSSIBLE lets
  // the ranges the regulators set aside for fiction (07700 900xxx) through; we judge validity below.
  const options = { defaultCountry: country, v2: true, leniency: "POSSIBLE" } as unknown as { defaultCountry: CountryCode; v2: true };
  for (const found of findNumbers(segment, options)) {
    const { number } = found;
    const start = found.startsAt + offset;
    const end = found.endsAt + offset;
    const key = `${start}:${end}`;
    if (seen.has(key)) continue;
    const raw = text.slice(start, end);
    if ((raw.match(DIGITS)?.length ?? 0) < 7 || /[,\n]/.test(raw)) continue;
    if (gluedToDigits(text, start, end)) continue;
    if (NOT_PHONE_BEFORE.test(text.slice(Math.max(0, start - 40), start))) continue;
    const phoneShaped = /^(?:\+|00|0|\()/.test(raw);
    if (!number.isValid() && !(phoneShaped && number.isPossible())) continue;
    seen.add(key);
    spans.push({ kind: "phone", start, end });
  }
  return spans;
}
