/**
 * @module ai/insights/text
 * One pass of wink-nlp (wink-eng-lite-web-model) over an answer: tokens with POS, lemma and
 * negation, sentence texts, and noun phrases (./phrases.ts). Every other insight works on this
 * {@link ParsedText}, so the text is tokenised once per analysis. The wink instance is built on
 * first use (about 100 ms) and shared by every engine in the thread.
 */
import winkNLP, { type ItsFunction, type Tokens, type WinkMethods } from "wink-nlp";
import model from "wink-eng-lite-web-model";
import { findNounPhrases, type Phrase } from "./phrases.ts";

/** One token of the answer. `normal` is lowercase; `pos` is a Universal POS tag ("NOUN", …). */
export interface Token {
  value: string;
  normal: string;
  lemma: string;
  pos: string;
  /** wink token type: "word", "number", "punctuation", "email", "url", "emoji", … */
  type: string;
  isStop: boolean;
  /** True inside the scope of a negation ("doesn't *work*"). */
  isNegated: boolean;
  /** Whether whitespace precedes the token (joins "Wi-Fi", "USB-C" into one compound). */
  hasSpaceBefore: boolean;
  /** Index into {@link ParsedText.sentences}. */
  sentence: number;
}

/** The parsed answer. `sentences` keep their original spelling and punctuation. */
export interface ParsedText {
  text: string;
  tokens: Token[];
  sentences: string[];
  phrases: Phrase[];
}

let nlp: WinkMethods | null = null;

function getNlp(): WinkMethods {
  if (nlp) return nlp;
  nlp = winkNLP(model);
  return nlp;
}

/**
 * One property of every token. wink's typings describe `its.*` helpers with a signature that
 * `out()` does not accept and return `T[] | string[]`; the cast is confined to this function.
 */
function column<T>(tokens: Tokens, its: unknown): T[] {
  return tokens.out(its as ItsFunction<T>) as T[];
}

/**
 * Tokenises, tags and splits `text` with wink-nlp.
 * @param text any string (empty gives empty arrays).
 * @returns the {@link ParsedText}; never throws for ordinary text.
 */
export function parseText(text: string): ParsedText {
  const winkNlp = getNlp();
  const its = winkNlp.its;
  const doc = winkNlp.readDoc(text);
  const tokens: Token[] = [];
  const sentences: string[] = [];
  // Each property is read once for the whole document (one call per property, not per
  // sentence and property); sentence spans give each token its sentence.
  const all = doc.tokens();
  const values = column<string>(all, its.value);
  const normals = column<string>(all, its.normal);
  const lemmas = column<string>(all, its.lemma);
  const tags = column<string>(all, its.pos);
  const types = column<string>(all, its.type);
  const stops = column<boolean>(all, its.stopWordFlag);
  const negations = column<boolean>(all, its.negationFlag);
  const spaces = column<string>(all, its.precedingSpaces);
  const docSentences = doc.sentences();
  const spans = docSentences.out(its.span as unknown as ItsFunction<[number, number]>) as unknown as [number, number][];
  for (const sentence of docSentences.out() as string[]) sentences.push(sentence.trim());
  spans.forEach(([start, end], sentenceIndex) => {
    for (let i = start; i <= end; i++) {
      tokens.push({
        value: values[i] ?? "",
        normal: normals[i] ?? "",
        lemma: (lemmas[i] ?? normals[i] ?? "").toLowerCase(),
        pos: tags[i] ?? "X",
        type: types[i] ?? "word",
        isStop: stops[i] ?? false,
        isNegated: negations[i] ?? false,
        hasSpaceBefore: (spaces[i] ?? "").length > 0,
        sentence: sentenceIndex,
      });
    }
  });
  return { text, tokens, sentences, phrases: findNounPhrases(tokens) };
}
