/**
 * @module test/helpers/hearing
 * Checks that the hearing Whisper fixture (test/helpers/fixtures.ts HEARING_ASR_MODEL) heard what
 * was said: every spoken word is in the transcript, ignoring case, punctuation and word order
 * (a tiny model may repeat or drop a filler word; the tests are about the audio path, not about
 * its accuracy).
 */
import { expect } from "bun:test";

/** The words of `text`: lower case, letters and digits only. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9']+/)
    .filter((w) => w !== "");
}

/**
 * The words of `said` that are missing from `heard` (empty when all were heard). Use as
 * `expect(missingWords(result.text, "the price is too high")).toEqual([])`, so a failure names the
 * words that were lost and the test output shows what was heard.
 */
export function missingWords(heard: string, said: string): string[] {
  const got = new Set(wordsOf(heard));
  return wordsOf(said).filter((w) => !got.has(w));
}

/**
 * Expects every word of `said` in `heard` (see {@link missingWords}); a failure shows what was
 * heard and which words are missing.
 */
export function expectHeard(heard: string, said: string): void {
  expect({ heard, missing: missingWords(heard, said) }).toEqual({ heard, missing: [] });
}
