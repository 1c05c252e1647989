/**
 * @module ai/insights/boilerplate
 * Text that is not what a respondent said but what an upstream step produced: the transcript of
 * the test fixture ASR ("This is a fixture transcript.", returned for any audio) and the lines
 * Whisper is known to invent over silence or music ("Thanks for watching!", "Subtitles by the
 * Amara.org community", "Please subscribe"). Topics, follow-ups, summaries and custom fields
 * never build on it (issue 24: "fixture transcript" reached a dashboard's top topics and a
 * follow-up question). Sentiment still reads the answer as stored.
 */

/** Each pattern matches the whole boilerplate span, up to its end of line where it has no full stop of its own. */
const BOILERPLATE = [
  /\bthis is a fixture transcript\b[.!]*/gi,
  /\bthanks? (?:you )?(?:so much )?for watching\b[^.!?\n]*[.!?]*/gi,
  /\bsubtitles? (?:by|created by|provided by)\b[^\n]*/gi,
  /\b(?:please )?(?:like and )?subscribe(?: to (?:my|our|the) channel)?[.!]*\s*$/gim,
  /\btranscribed by\b[^\n]*/gi,
];

const MAY_HAVE_BOILERPLATE = /fixture|watching|subtitle|subscribe|transcribed/i;

/**
 * Removes upstream boilerplate from an answer.
 * @param text the answer as stored (typed or transcribed).
 * @returns the text without boilerplate, spaces collapsed ("" when nothing else was said); the
 *   text unchanged when it has none.
 */
export function stripBoilerplate(text: string): string {
  // One cheap test first: nearly every answer has none of these words.
  if (!MAY_HAVE_BOILERPLATE.test(text)) return text;
  let out = text;
  for (const re of BOILERPLATE) out = out.replace(re, " ");
  return out.replace(/\s+/g, " ").trim();
}
