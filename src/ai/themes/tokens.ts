/**
 * @module ai/themes/tokens
 * The cheap tokeniser of the theme embedder: lowercase words (apostrophes kept inside), with the
 * spoken fillers and stutters that Whisper writes ("um", "uh", "like", "you know") removed —
 * GloVe-style vectors know "um" as a rare word, so SIF would give it a large weight.
 * wink-nlp's full pipeline (POS, lemmas) costs about ten times more per answer and is used only
 * where it earns it: labels (./labels.ts).
 */

/** Words dropped before embedding: fillers, hedges and words that carry no topic. */
export const FILLERS = new Set([
  "um",
  "umm",
  "uh",
  "uhh",
  "er",
  "erm",
  "hmm",
  "mm",
  "ah",
  "oh",
  "like",
  "yeah",
  "yep",
  "ok",
  "okay",
  "so",
  "well",
  "just",
  "really",
  "honestly",
  "basically",
  "actually",
  "literally",
  "kind",
  "sort",
  "lol",
  "tbh",
  "thx",
  "thanks",
  "pls",
  "please",
  "know",
  "mean",
  "guess",
  "think",
  "i'm",
  "it's",
  "i",
  "me",
  "my",
  "we",
  "our",
  "you",
  "your",
  "they",
  "them",
  "it",
  "its",
  "this",
  "that",
]);

/** Lowercase word tokens of `text`, fillers removed; "didn't" and "wi-fi" stay one token. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[a-z]+(?:['’-][a-z]+)*/g)) {
    const w = m[0].replace("’", "'");
    if (!FILLERS.has(w)) out.push(w);
  }
  return out;
}

/** Sentences of `text` (split after . ! ? or a line break), trimmed, empty ones dropped. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /[a-z]/i.test(s));
}
