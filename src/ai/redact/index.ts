/**
 * @module ai/redact
 * Local PII redaction (issue 25; DESIGN §13 `settings.redact_pii`; docs/privacy.md "PII redaction",
 * docs/decisions/redaction.md). Pure, synchronous and local: usable on the HTTP thread for typed
 * answers and in the worker for transcripts. Nothing here logs or returns an unmasked value.
 */
import type { CountryCode } from "libphonenumber-js/max";
import { findAddresses } from "./address.ts";
import { findNames } from "./names.ts";
import { findCards, findEmails, findIbans } from "./patterns.ts";
import { findPhones } from "./phone.ts";
import { spokenDigitsShadow } from "./spoken.ts";
import { PII_KINDS, type PiiKind, type PiiSpan } from "./types.ts";

export { PII_KINDS, type PiiKind, type PiiSpan };

export interface RedactOptions {
  /** BCP 47 tag of the text; names and addresses are looked for in English (or unknown) text only. */
  language?: string;
  /** Countries whose national phone numbers are recognised without a +; default GB and US. */
  phoneCountries?: readonly CountryCode[];
}

export interface Redaction {
  /** The text with every detection replaced by `[kind]`. */
  text: string;
  /** Detections, in order, with offsets into the ORIGINAL text (UTF-16 units, end exclusive). */
  found: PiiSpan[];
}

/** Window size and overlap: every detector sees at most CHUNK + OVERLAP characters at once. */
export const CHUNK = 4096;
const OVERLAP = 512; // longer than any value we mask (an email is at most 254 characters)

// When two detections overlap, the more specific kind wins (an IBAN holds digit runs a phone
// detector may also take), then the longer one.
const PRIORITY: Record<PiiKind, number> = { email: 0, iban: 1, card: 2, phone: 3, address: 4, name: 5 };

function detect(window: string, options: RedactOptions): PiiSpan[] {
  const shadow = spokenDigitsShadow(window);
  const numeric = [...findCards(shadow.text), ...findPhones(shadow.text, options.phoneCountries)].map((s) => {
    const [start, end] = shadow.toOriginal(s.start, s.end);
    return { kind: s.kind, start, end };
  });
  const english = !options.language || /^en\b/i.test(options.language);
  return [...findEmails(window), ...findIbans(window), ...numeric, ...(english ? [...findAddresses(window), ...findNames(window)] : [])];
}

function resolveOverlaps(spans: PiiSpan[]): PiiSpan[] {
  const ranked = [...spans].sort((a, b) => PRIORITY[a.kind] - PRIORITY[b.kind] || b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: PiiSpan[] = [];
  for (const s of ranked) if (!kept.some((k) => s.start < k.end && k.start < s.end)) kept.push(s);
  return kept.sort((a, b) => a.start - b.start);
}

/**
 * Finds and masks emails, phone numbers, payment cards (Luhn), IBANs, person names and street
 * addresses in `text`, in typed and spoken styles (DESIGN §13 masks `[email]`, `[phone]`, `[card]`,
 * `[iban]`, `[name]`, `[address]`).
 *
 * Bounded: the text is read in windows of {@link CHUNK} characters (plus an overlap), each detector
 * is linear in its window, so time grows linearly with the length; the caller bounds the length.
 * Idempotent: masked text holds nothing to detect. Never throws for any string.
 * @param text a transcript or typed answer (any string; not a string gives back an empty result).
 * @returns the masked text and the detections (kind and original offsets, never the values).
 */
export function redactPii(text: string, options: RedactOptions = {}): Redaction {
  if (typeof text !== "string" || text.length === 0) return { text: typeof text === "string" ? text : "", found: [] };
  const spans: PiiSpan[] = [];
  for (let s = 0; s < text.length; ) {
    let next = Math.min(text.length, s + CHUNK);
    // Start the next window after a space so it does not begin inside a word.
    const space = text.slice(next, next + 64).search(/\s/);
    if (next < text.length && space >= 0) next += space + 1;
    const window = text.slice(s, Math.min(text.length, next + OVERLAP));
    for (const d of detect(window, options)) if (d.start + s < next) spans.push({ kind: d.kind, start: d.start + s, end: d.end + s });
    s = next;
  }
  const found = resolveOverlaps(spans);
  let out = "";
  let at = 0;
  for (const f of found) {
    out += `${text.slice(at, f.start)}[${f.kind}]`;
    at = f.end;
  }
  return { text: out + text.slice(at), found };
}
