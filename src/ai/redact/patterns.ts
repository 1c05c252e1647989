/**
 * @module ai/redact/patterns
 * Emails (typed and spoken), payment cards (Luhn) and IBANs (ISO 13616 checksum via ibantools)
 * (issue 25; docs/decisions/redaction.md). Every pattern starts only where a token starts
 * (a lookbehind), so a scan is linear in the text: no start position re-reads another's token.
 */
import { electronicFormatIBAN, isValidIBAN } from "ibantools";
import type { PiiSpan } from "./types.ts";

// RFC 5322's dot-atom, the form people type; quoted local parts are left out on purpose.
const EMAIL = /(?<![\w.%+-])[\w%+-]+(?:\.[\w%+-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}(?![\w-])/g;

// "john dot smith at gmail dot com": a local part of words joined by dot/underscore/dash, " at ",
// and a domain of at least two labels whose last is a common top-level domain, spoken ("gmail dot
// com") or written ("gmail.com", as a transcriber sometimes does).
const TLD = "com|org|net|co|uk|io|de|fr|es|it|nl|ie|eu|edu|gov|info|me|dev|ac|au|ca|us|biz|fm|app";
const SPOKEN_EMAIL = new RegExp(
  `(?<![A-Za-z0-9])[A-Za-z0-9]+(?:\\s+(?:dot|underscore|dash|hyphen)\\s+[A-Za-z0-9]+){0,4}\\s+at\\s+(?:[A-Za-z0-9]+(?:\\s+dot\\s+[A-Za-z0-9]+){0,3}\\s+dot\\s+|[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+){0,3}\\.)(?:${TLD})(?![A-Za-z0-9])`,
  "gi",
);
const EMAIL_CUE = /\b(?:e-?mail|mail|address|contact|reach|write)\b/i;
/** Words that start a phrase, not an address ("email me at …" must not take "me"). */
const NOT_LOCAL = new Set(["me", "is", "it", "us", "email", "mail", "address", "was", "and", "or", "to", "at", "the"]);

/** Typed and spoken email addresses in `text`. */
export function findEmails(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(EMAIL)) spans.push({ kind: "email", start: m.index, end: m.index + m[0].length });
  for (const m of text.matchAll(SPOKEN_EMAIL)) {
    const first = (m[0].split(/\s/, 1)[0] ?? "").toLowerCase();
    if (NOT_LOCAL.has(first)) continue;
    // "shop at amazon.com" is a place, not an address: the written-domain form needs an email cue.
    if (!/\sdot\s/i.test(m[0].slice(m[0].search(/\sat\s/i))) && !EMAIL_CUE.test(text.slice(Math.max(0, m.index - 40), m.index))) continue;
    spans.push({ kind: "email", start: m.index, end: m.index + m[0].length });
  }
  return spans;
}

/** The Luhn check of a string of digits (ISO/IEC 7812-1). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

// A run of 13–19 digits, optionally grouped by single spaces or dashes, not glued to other digits.
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])(?!-\d)/g;

/** Payment card numbers: 13–19 digits that pass Luhn and do not start with 0 (no issuer uses 0). */
export function findCards(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(CARD)) {
    const digits = m[0].replace(/[ -]/g, "");
    if (digits[0] === "0" || !luhnValid(digits)) continue;
    spans.push({ kind: "card", start: m.index, end: m.index + m[0].length });
  }
  return spans;
}

// Country code, check digits, then up to 30 letters/digits in groups of up to 4 with optional spaces.
const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g;

/** IBANs whose ISO 13616 checksum and national length hold (ibantools); the longest valid prefix on group boundaries. */
export function findIbans(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(IBAN)) {
    // Try the whole match, then shorter ones ending before a space: text may follow an IBAN ("… 32 for").
    let end = m[0].length;
    while (end > 0) {
      const candidate = electronicFormatIBAN(m[0].slice(0, end)) ?? "";
      if (isValidIBAN(candidate)) {
        spans.push({ kind: "iban", start: m.index, end: m.index + end });
        break;
      }
      end = m[0].lastIndexOf(" ", end - 1);
    }
  }
  return spans;
}
