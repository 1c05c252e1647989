/**
 * @module ai/redact/address
 * Street addresses in English: a house number (digits, or number words as transcripts write them),
 * one to three capitalised street-name words and a street-type word (issue 25;
 * docs/decisions/redaction.md "Addresses"). The town and postcode after it are not masked.
 */
import type { PiiSpan } from "./types.ts";

const UNITS = "one|two|three|four|five|six|seven|eight|nine";
const TEENS = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen";
const TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety";
const NUMBER_WORDS = `(?:(?:${TENS})(?:[ -](?:${UNITS}))?|${TEENS}|${UNITS})`;
const HOUSE = String.raw`(?:\d{1,5}[A-Za-z]?|${NUMBER_WORDS}(?:\s+hundred(?:\s+and)?(?:\s+${NUMBER_WORDS})?)?)`;
const STREET_WORD = String.raw`[A-Z][A-Za-z]*(?:['’][a-z]+)?`;
const TYPE =
  "Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Way|Parkway|Pkwy|Court|Ct|Place|Pl|Terrace|Close|Crescent|Square|Sq|Highway|Hwy|Row|Grove|Gardens|Walk|Mews|Hill";
const ADDRESS = new RegExp(String.raw`(?<![\w.,-])${HOUSE}\s+(?:${STREET_WORD}\s+){1,3}(?:${TYPE})\b\.?`, "g");

/** Street addresses in `text` (English). */
export function findAddresses(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(ADDRESS)) {
    // "St." and "Dr." end a sentence as often as they abbreviate; keep the dot out of the span.
    const end = m.index + m[0].length - (m[0].endsWith(".") ? 1 : 0);
    spans.push({ kind: "address", start: m.index, end });
  }
  return spans;
}
