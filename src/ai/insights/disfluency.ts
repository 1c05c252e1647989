/**
 * @module ai/insights/disfluency
 * Removes the disfluencies of spoken answers before topics and summaries are taken from them:
 * fillers ("um", "uh", "erm"), discourse markers set off by commas (", like,", "you know,",
 * "I mean,"; hedges such as "kind of weird" stay, they carry meaning), openers ("Okay, so,"),
 * and repeated words of false starts ("the, the app" → "the app", "it's, it's" → "it's").
 * Typed answers pass through unchanged apart from collapsed spaces. Sentence starts are
 * re-capitalised so the cleaned sentences read as written text.
 */

const FILLER_IN_COMMAS = /,\s*(?:u+m+|u+h+|e+r+m+|e+r+|u+h+m+)\s*,\s*/gi;
const FILLERS = /(^|[\s,.;:!?])(?:u+m+|u+h+|e+r+m+|e+r+|u+h+m+|h+m+)(?=[\s,.;:!?]|$)[,]?/gi;
const LIKE_IN_COMMAS = /,\s*like\s*,\s*/gi;
const COMMA_MARKERS = /,\s*(?:you know|i mean|basically|honestly|actually|sort of|kind of)\s*,/gi;
const OPENERS = /(^|[.!?]\s+)(?:(?:okay|ok|right|so|and|well|yeah|oh|look|now|um|uh|erm|anyway)\s*,?\s+)+(?=\S)/gi;
const LEADING_MARKER = /(^|[.!?]\s+)(?:like|you know|i mean),\s*/gi;
const STUTTER = /\b([A-Za-z']+(?:\s+[A-Za-z']+){0,2}),?\s+\1\b/gi;

/**
 * Cleans a transcript.
 * @returns the text without fillers, comma-set discourse markers, openers and stutters; the
 *   same text (spaces collapsed) when it has none.
 */
export function removeDisfluencies(text: string): string {
  let t = text.replace(/\s+/g, " ").trim();
  for (let pass = 0; pass < 3; pass++) {
    const before = t;
    t = t.replace(FILLER_IN_COMMAS, " ").replace(LIKE_IN_COMMAS, " ").replace(FILLERS, "$1").replace(COMMA_MARKERS, ",").replace(STUTTER, "$1");
    t = t.replace(OPENERS, "$1").replace(LEADING_MARKER, "$1");
    t = t
      .replace(/\s+,/g, ",")
      .replace(/,\s*,/g, ",")
      .replace(/([.!?])\s*,/g, "$1")
      .replace(/^,\s*/, "");
    t = t.replace(/\s{2,}/g, " ").trim();
    if (t === before) break;
  }
  return t.replace(/(^|[.!?]\s+)([a-z])/g, (_m, lead: string, c: string) => lead + c.toUpperCase());
}
