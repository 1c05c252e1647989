/**
 * @module ai/insights/phrases
 * Noun-phrase chunking over wink-nlp's POS tags: `ADJ? (NOUN|PROPN){1,3}` per sentence, with
 * hyphenated compounds ("Wi-Fi", "check-in", "two-factor") kept as one word. Leading sentiment
 * words ("great hotel" → "hotel") and generic modifiers ("new editor" → "editor") are dropped,
 * and single generic nouns ("thing", "stuff", "time") are not phrases, so what is left names the
 * thing the respondent talks about.
 */
import { isSentimentWord } from "./sentiment-lexicon.ts";
import type { Token } from "./text.ts";

/** A noun phrase: lowercase text, a lemma key for counting, and its token range (inclusive). */
export interface Phrase {
  text: string;
  /** Lemmas joined by spaces ("cards" and "card" share the key "card"). */
  key: string;
  start: number;
  end: number;
  sentence: number;
  /** Number of words (a hyphenated compound counts as one). */
  words: number;
}

/** Longest phrase kept, in words; longer runs keep their last (head) words. */
export const MAX_PHRASE_WORDS = 3;

/** Lemmas that never stand alone as a topic: they name nothing the team can look at. */
export const GENERIC_NOUNS = new Set([
  "thing",
  "stuff",
  "lot",
  "bit",
  "way",
  "time",
  "day",
  "kind",
  "sort",
  "one",
  "everything",
  "nothing",
  "something",
  "anything",
  "experience",
  "people",
  "person",
  "guy",
  "week",
  "month",
  "year",
  "minute",
  "hour",
  "second",
  "opinion",
  "feeling",
  "fact",
  "job",
  "ok",
  "okay",
  "thanks",
  "thank",
  "yeah",
  "um",
  "uh",
  "hmm",
  "problem",
  "issue",
  "overall",
  "quality",
  "money",
  "start",
  "finish",
  "part",
  "idea",
  "point",
  "question",
  "answer",
  "end",
  "dunno",
  "idk",
  "alright",
  "lol",
  "meh",
  "service",
  "name",
  // Time and family words and contractions tagged as nouns in spoken answers (long transcripts).
  "morning",
  "evening",
  "night",
  "weekend",
  "today",
  "tomorrow",
  "yesterday",
  "mum",
  "mom",
  "dad",
  "husband",
  "wife",
  "kid",
  "kids",
  "family",
  "friend",
  "i'm",
  "it's",
  "that's",
  "home",
  "work",
  "place",
  "side",
  "case",
  "number",
  "couple",
  // Words that name a step of using something, not the thing (issue 24: "step", "show" and
  // "ages" reached a dashboard's top topics), and words about the answer itself.
  "step",
  "show",
  "ages",
  "tap",
  "click",
  "tab",
  "bunch",
  "load",
  "loads",
  "transcript",
  "fixture",
  "recording",
  "feedback",
  "survey",
  "comment",
  "response",
  "message",
  "same",
  "usual",
  // Days and months name when, not what.
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
  "january",
  "february",
  "march",
  "april",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
]);

/** Heads that make a phrase about the answer itself ("fixture transcript", "voice message"): never a topic. */
const META_HEADS = new Set(["transcript", "fixture", "recording", "survey", "feedback", "questionnaire"]);

/** Nouns VADER scores (support 0.40, help 0.40) that are still things a team looks after. */
const VALENCED_TOPIC_NOUNS = new Set(["support", "help", "care", "security", "safety", "comfort"]);

/** Modifiers that add nothing to a topic ("new editor" is the editor). */
const GENERIC_MODIFIERS = new Set([
  "new",
  "old",
  "same",
  "other",
  "last",
  "first",
  "whole",
  "own",
  "such",
  "only",
  "several",
  "many",
  "much",
  "few",
  "next",
  "entire",
  "overall",
  "certain",
  "little",
  "big",
  "real",
  "main",
]);

interface Unit {
  text: string;
  lemma: string;
  kind: "noun" | "modifier";
  start: number;
  end: number;
  sentence: number;
  /** POS of the unit's first token, to tell a sentence-initial "Great" (PROPN) from a noun. */
  pos: string;
  /** A gerund used as a noun modifier ("shipping" in "shipping cost"): part of the name. */
  compound: boolean;
}

const PARTICIPLE = /(?:ing|ed|en)$/;

/** Whether token `i`, tagged VERB, is a participle between a determiner/adjective/possessive and a noun. */
function isParticipleInPhrase(tokens: Token[], i: number): boolean {
  const sentence = tokens[i]!.sentence;
  const isParticiple = (t: Token | undefined) => t?.sentence === sentence && t.pos === "VERB" && PARTICIPLE.test(t.normal);
  if (!isParticiple(tokens[i])) return false;
  let right = i + 1;
  while (isParticiple(tokens[right]) && right - i < 2) right++;
  let left = i - 1;
  while (isParticiple(tokens[left]) && i - left < 2) left--;
  const before = tokens[left];
  const after = tokens[right];
  return (
    after?.sentence === sentence &&
    isNominal(after.pos) &&
    before?.sentence === sentence &&
    (before.pos === "DET" || before.pos === "ADJ" || before.pos === "PRON")
  );
}

function isNominal(pos: string): boolean {
  return pos === "NOUN" || pos === "PROPN";
}

/** Groups tokens into units, joining `word-word(-word)` written without spaces. */
function toUnits(tokens: Token[]): (Unit | null)[] {
  const units: (Unit | null)[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const first = tokens[i]!;
    if (first.type !== "word") {
      units.push(null);
      continue;
    }
    let end = i;
    while (
      tokens[end + 1]?.value === "-" &&
      !tokens[end + 1]!.hasSpaceBefore &&
      tokens[end + 2]?.type === "word" &&
      !tokens[end + 2]!.hasSpaceBefore &&
      tokens[end + 2]!.sentence === first.sentence
    )
      end += 2;
    const last = tokens[end]!;
    const parts = tokens.slice(i, end + 1).filter((t) => t.value !== "-");
    let kind: Unit["kind"] | null = isNominal(last.pos) ? "noun" : last.pos === "ADJ" || end > i ? "modifier" : null;
    const before = tokens[i - 1];
    const after = tokens[end + 1];
    // A participle or gerund the tagger read as a verb inside a noun phrase is a modifier ("the
    // hidden shipping cost", "my booking reference"): a determiner, adjective or possessive
    // before it and a noun after it (other participles may come between).
    let compound = false;
    if (kind === null && end === i && isParticipleInPhrase(tokens, i)) {
      kind = "modifier";
      compound = /ing$/.test(last.normal);
    }
    // A sentence-initial word tagged as a noun right before a determiner is an imperative
    // ("Show the fee first", "Fix the login"), and a noun right after a number is a count
    // ("two taps", "three times"): neither names a topic.
    if (kind === "noun" && end === i && (before?.sentence !== first.sentence || before === undefined) && after?.pos === "DET") kind = null;
    if (kind === "noun" && end === i && before?.sentence === first.sentence && before.pos === "NUM" && !isNominal(after?.pos ?? "")) kind = null;
    units.push(
      kind === null
        ? null
        : {
            text: parts.map((t) => t.normal).join("-"),
            lemma: end > i ? parts.map((t) => t.normal).join("-") : first.lemma,
            kind,
            start: i,
            end,
            sentence: first.sentence,
            pos: first.pos,
            compound,
          },
    );
    i = end;
  }
  return units;
}

function isDroppableLead(unit: Unit): boolean {
  if (GENERIC_MODIFIERS.has(unit.lemma)) return true;
  // Adjectives and capitalised sentence starts ("Great hotel", "Clean rooms") that carry
  // sentiment are opinions, not part of the topic; nouns inside a phrase stay ("phone support").
  return unit.pos !== "NOUN" && isSentimentWord(unit.text);
}

/** A one-word phrase must name a thing: not generic, not an opinion word ("Love the app"). */
function isTopicWord(unit: Unit): boolean {
  if (GENERIC_NOUNS.has(unit.lemma) || GENERIC_NOUNS.has(unit.text) || unit.text.length < 2) return false;
  return VALENCED_TOPIC_NOUNS.has(unit.lemma) || !isSentimentWord(unit.text);
}

function toPhrase(run: Unit[]): Phrase | null {
  let units = run;
  while (units.length > 0 && units[units.length - 1]!.kind !== "noun") units = units.slice(0, -1);
  while (units.length > 1 && isDroppableLead(units[0]!)) units = units.slice(1);
  // Keep at most one modifier, directly before the nouns.
  while (units.length > 1 && units[0]!.kind === "modifier" && units[1]!.kind === "modifier" && !units[1]!.compound) {
    units = units.slice(1);
  }
  units = units.slice(-MAX_PHRASE_WORDS);
  if (units.length === 0) return null;
  const head = units[units.length - 1]!;
  if (META_HEADS.has(head.lemma)) return null;
  // "usual things", "whole lot": an adjective before a generic noun names nothing either.
  if (units.every((u) => u === head || u.kind === "modifier") && (GENERIC_NOUNS.has(head.lemma) || GENERIC_NOUNS.has(head.text))) return null;
  if (units.length === 1) {
    const only = units[0]!;
    if (!isTopicWord(only)) return null;
  }
  return {
    text: units.map((u) => u.text).join(" "),
    key: units.map((u) => u.lemma).join(" "),
    start: units[0]!.start,
    end: units[units.length - 1]!.end,
    sentence: units[0]!.sentence,
    words: units.length,
  };
}

/**
 * Finds noun phrases in tagged tokens, in text order.
 * @param tokens the tokens of a {@link ParsedText} (indices into this array are kept).
 * @returns phrases such as `{ text: "checkout page", key: "checkout page", words: 2, … }`.
 */
export function findNounPhrases(tokens: Token[]): Phrase[] {
  const phrases: Phrase[] = [];
  let run: Unit[] = [];
  const flush = () => {
    const phrase = toPhrase(run);
    if (phrase) phrases.push(phrase);
    run = [];
  };
  for (const unit of toUnits(tokens)) {
    const previous = run[run.length - 1];
    const breaksRun =
      !unit ||
      (previous &&
        (previous.sentence !== unit.sentence ||
          // A modifier after a noun starts a new phrase ("room clean bed" → "room", "clean bed").
          (previous.kind === "noun" && unit.kind === "modifier")));
    if (breaksRun) flush();
    if (unit) run.push(unit);
  }
  flush();
  return phrases;
}
