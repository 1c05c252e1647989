/**
 * @module ai/redact/types
 * Shapes shared by the PII detectors (issue 25; DESIGN §13).
 */

/** The kinds of personal data Earshot masks; each is masked as `[kind]` (DESIGN §13). */
export const PII_KINDS = ["email", "phone", "card", "iban", "name", "address"] as const;
export type PiiKind = (typeof PII_KINDS)[number];

/** One detection: UTF-16 offsets into the text that was scanned, `end` exclusive. Never the value itself. */
export interface PiiSpan {
  kind: PiiKind;
  start: number;
  end: number;
}
