/**
 * @module ai/insights/custom-fields
 * Local extraction of a link's custom fields (`evaluator_config.custom_fields`), guessing each
 * field's meaning from its name (snake_case, kebab-case, camelCase or spaces). Heuristics, first
 * match wins:
 *
 * 1. **email / phone / url / website** → that item found in the text, else null.
 * 2. **sentiment / mood / tone** → the sentiment label.
 * 3. **Yes/no fields** — the name opens with a verb such as `wants_`, `needs_`, `is_`, `has_`,
 *    `would_`, `mentions_`, or ends in `_requested`: the rest of the name is a concept
 *    ("callback", with synonyms such as "call me back", "ring me"). Mentioned → true; mentioned
 *    under negation ("no need to call") → false; not mentioned → false for requests (`wants_`,
 *    `needs_`, `requests_`, `asks_`, `mentions_`, `…_requested`) and null otherwise (`is_`,
 *    `has_` … cannot be inferred from silence).
 * 4. **Numeric fields** — `…_count`, `number_of_…`, `how_many_…`, rating, score, price, age, or a
 *    unit (`wait_minutes`, `nights`, `stars`): the number before that unit in the text ("45
 *    minutes", "an hour" = 1), else the first number (digits or words up to ninety); else null.
 * 5. **Thing fields** — name, brand, competitor, company, person, staff → the first proper-noun
 *    run that is not an opinion word ("Marco"); issue, problem, complaint → a topic from a
 *    sentence that reports a problem; request, suggestion → a topic from a sentence that asks
 *    for something; product, feature, item, device, dish, topic, `…_mentioned` … → a topic
 *    containing a word of the name, else the first topic; null when there is none.
 * 6. Anything else → null.
 */
import type { Cue } from "./cues.ts";
import type { ParsedText, Token } from "./text.ts";
import type { CustomFieldValue, Sentiment } from "./types.ts";

/** What extraction may use besides the parsed text. */
export interface FieldContext {
  sentiment: Sentiment;
  topics: string[];
  cues: Cue[];
}

const INTENT_PREFIXES = new Set(["wants", "want", "needs", "need", "requests", "requested", "asks", "asked", "mentions"]);
const STATE_PREFIXES = new Set([
  "is",
  "has",
  "had",
  "did",
  "does",
  "was",
  "can",
  "will",
  "should",
  "would",
  "likes",
  "liked",
  "recommends",
  "expects",
  "plans",
  "prefers",
  "uses",
  "used",
]);
const SYNONYMS: Record<string, string[]> = {
  callback: ["callback", "call back", "call me", "phone me", "ring me", "give me a call", "contact me"],
  call: ["call me", "call back", "phone me", "ring me", "callback"],
  contact: ["contact", "reach out", "get in touch", "email me", "call me", "reach me"],
  refund: ["refund", "money back", "reimburse", "reimbursement"],
  cancel: ["cancel", "unsubscribe", "close my account"],
  demo: ["demo", "demonstration", "walkthrough"],
  discount: ["discount", "coupon", "voucher", "cheaper"],
  return: ["come back", "be back", "return", "again"],
  recommend: ["recommend"],
  upgrade: ["upgrade"],
  help: ["help", "support", "assist"],
};
const NUMERIC_WORDS = new Set(["count", "number", "num", "rating", "score", "nps", "age", "price", "amount", "cost", "total", "quantity", "duration", "wait"]);
const UNITS = [
  "minutes",
  "hours",
  "days",
  "weeks",
  "months",
  "years",
  "times",
  "stars",
  "people",
  "guests",
  "nights",
  "seconds",
  "items",
  "euros",
  "dollars",
  "pounds",
];
const WORD_NUMBERS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  a: 1,
  an: 1,
  half: 0.5,
};
const PERSON_WORDS = new Set(["name", "brand", "competitor", "company", "person", "staff", "employee", "agent", "waiter", "vendor"]);
const PROBLEM_WORDS = new Set(["issue", "problem", "complaint", "bug", "defect"]);
const REQUEST_WORDS = new Set(["request", "suggestion", "wish", "idea", "improvement"]);
const THING_WORDS = new Set([
  "product",
  "feature",
  "item",
  "device",
  "dish",
  "meal",
  "topic",
  "subject",
  "category",
  "service",
  "location",
  "place",
  "room",
  "area",
  "mentioned",
  "model",
  "plan",
  "app",
  "page",
]);
const FILLER = new Set(["to", "a", "an", "the", "of", "for", "be", "get", "me", "us"]);

/** Splits a field name into lowercase words: "wantsCallback" → ["wants", "callback"]. */
export function fieldNameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function singular(word: string): string {
  return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
}

/** Index of the first token where `phrase` (normal forms, or lemmas for one word) starts. */
function findPhrase(tokens: Token[], phrase: string): number {
  const parts = phrase.split(" ");
  for (let i = 0; i + parts.length <= tokens.length; i++) {
    const ok = parts.every((p, k) => {
      const t = tokens[i + k]!;
      return t.normal === p || (parts.length === 1 && (t.lemma === p || singular(t.normal) === p));
    });
    if (ok) return i;
  }
  return -1;
}

function yesNo(words: string[], parsed: ParsedText): boolean | null {
  const [first = ""] = words;
  const isIntent = INTENT_PREFIXES.has(first) || words.at(-1) === "requested";
  const concept = words.slice(1).filter((w) => !FILLER.has(w) && w !== "requested");
  if (concept.length === 0) return null;
  const key = concept.join(" ");
  const synonyms = SYNONYMS[key] ?? (concept.length === 1 ? SYNONYMS[concept[0]!] : undefined) ?? [];
  const tokens = parsed.tokens.filter((t) => t.type === "word");
  for (const candidate of [...synonyms, key]) {
    const at = findPhrase(tokens, candidate);
    if (at >= 0) return !tokens[at]!.isNegated;
  }
  // A multi-word concept ("returning customer") counts only when all its words occur.
  const positions = concept.map((w) => findPhrase(tokens, singular(w)));
  if (concept.length > 1 && positions.every((p) => p >= 0)) {
    return !positions.some((p) => tokens[p]!.isNegated);
  }
  if (concept.length === 1 && positions[0]! >= 0) return !tokens[positions[0]!]!.isNegated;
  return isIntent ? false : null;
}

function numberAt(tokens: Token[], index: number): number | null {
  const t = tokens[index];
  if (!t) return null;
  const digits = Number(t.normal.replace(/[$€£,]/g, ""));
  if (t.normal.length > 0 && Number.isFinite(digits) && /\d/.test(t.normal)) return digits;
  const word = WORD_NUMBERS[t.normal];
  if (word === undefined) return null;
  const ones = WORD_NUMBERS[tokens[index + 1]?.normal ?? ""]; // "forty five"
  return word >= 20 && ones !== undefined && ones >= 1 && ones < 10 ? word + ones : word;
}

/** The number right before token `index`: "45 minutes", "forty five minutes", "half an hour". */
function numberBefore(tokens: Token[], index: number): number | null {
  const value = numberAt(tokens, index - 1);
  if (value === null || index < 2) return value;
  const before = tokens[index - 2]!.normal;
  if (before === "half" && value === 1) return 0.5;
  const tens = WORD_NUMBERS[before];
  return tens !== undefined && tens >= 20 && value >= 1 && value < 10 ? tens + value : value;
}

function numeric(words: string[], parsed: ParsedText): number | null {
  const tokens = parsed.tokens;
  const unit = words.find((w) => UNITS.includes(w));
  if (unit) {
    for (let i = 1; i < tokens.length; i++) {
      if (singular(tokens[i]!.normal) !== singular(unit)) continue;
      const value = numberBefore(tokens, i);
      if (value !== null) return value;
    }
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === "number" || (t.pos === "NUM" && WORD_NUMBERS[t.normal] !== undefined)) {
      const value = numberAt(tokens, i);
      if (value !== null) return value;
    }
  }
  return null;
}

function isNumericName(words: string[]): boolean {
  const joined = words.join("_");
  return words.some((w) => NUMERIC_WORDS.has(w) || UNITS.includes(w)) || joined.startsWith("how_many") || joined.startsWith("number_of");
}

function properNoun(parsed: ParsedText): string | null {
  const { tokens } = parsed;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const isSentenceStart = i === 0 || tokens[i - 1]!.sentence !== t.sentence;
    const isCapitalised = /^\p{Lu}/u.test(t.value);
    const inCompound = tokens[i + 1]?.value === "-" || tokens[i - 1]?.value === "-";
    if (t.pos !== "PROPN" || !isCapitalised || isSentenceStart || inCompound || t.normal === "i") continue;
    let end = i;
    while (tokens[end + 1]?.pos === "PROPN" && /^\p{Lu}/u.test(tokens[end + 1]!.value)) end++;
    return tokens
      .slice(i, end + 1)
      .map((x) => x.value)
      .join(" ");
  }
  return null;
}

function topicInCueSentence(parsed: ParsedText, ctx: FieldContext, kind: Cue["kind"]): string | null {
  const sentences = new Set(ctx.cues.filter((c) => c.kind === kind).map((c) => c.sentence));
  return parsed.phrases.find((p) => sentences.has(p.sentence))?.text ?? null;
}

/**
 * Extracts one field's value.
 * @param name the field name as configured, e.g. "wants_callback".
 * @returns a string, number, boolean, or null when the heuristics in this module's header do
 *   not apply or the answer does not say.
 */
export function extractCustomField(name: string, parsed: ParsedText, ctx: FieldContext): CustomFieldValue {
  const words = fieldNameWords(name);
  if (words.length === 0) return null;
  const has = (set: Set<string>) => words.some((w) => set.has(w));
  const ofType = (type: string) => parsed.tokens.find((t) => t.type === type)?.value ?? null;
  if (words.includes("email")) return ofType("email");
  if (words.includes("url") || words.includes("website")) return ofType("url");
  if (words.includes("phone")) return parsed.text.match(/\+?\d[\d\s().-]{6,}\d/)?.[0] ?? null;
  if (words.some((w) => w === "sentiment" || w === "mood" || w === "tone")) return ctx.sentiment;
  const first = words[0]!;
  if (INTENT_PREFIXES.has(first) || STATE_PREFIXES.has(first) || words.at(-1) === "requested") {
    return yesNo(words, parsed);
  }
  if (isNumericName(words)) return numeric(words, parsed);
  if (has(PERSON_WORDS)) return properNoun(parsed);
  if (has(PROBLEM_WORDS)) return topicInCueSentence(parsed, ctx, "problem");
  if (has(REQUEST_WORDS)) return topicInCueSentence(parsed, ctx, "request");
  if (has(THING_WORDS)) {
    const specific = words.filter((w) => !THING_WORDS.has(w));
    return ctx.topics.find((t) => specific.some((w) => t.includes(w))) ?? ctx.topics[0] ?? null;
  }
  return null;
}

/**
 * Extracts every configured field.
 * @param names field names from `evaluator_config.custom_fields` (non-strings and blanks are
 *   ignored).
 * @returns an object with one key per name.
 */
export function extractCustomFields(names: readonly unknown[] | undefined, parsed: ParsedText, ctx: FieldContext): Record<string, CustomFieldValue> {
  const out: Record<string, CustomFieldValue> = {};
  for (const name of names ?? []) {
    if (typeof name !== "string" || name.trim() === "") continue;
    out[name] = extractCustomField(name, parsed, ctx);
  }
  return out;
}
