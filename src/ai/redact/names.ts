/**
 * @module ai/redact/names
 * Person names, found only after or before a cue phrase ("my name is …", "spoke to …",
 * "… at the front desk") and confirmed as a proper noun by wink-nlp's tagger (issue 25;
 * docs/decisions/redaction.md "Names": wink-nlp's English model has no person entity, and tagging
 * every proper noun as a name was measured and rejected).
 */
import winkNLP, { type WinkMethods } from "wink-nlp";
import model from "wink-eng-lite-web-model";
import type { PiiSpan } from "./types.ts";

// Before a name (case-insensitive). Strong cues need no tagger confirmation.
const STRONG = String.raw`my name is|my name's|name's|call me|ask(?:ed)?\s+for|(?:mr|mrs|ms|miss|dr|prof)\.?`;
const FAMILY = String.raw`husband|wife|partner|daughter|son|mum|mom|dad|father|mother|brother|sister|friend|colleague|manager|boss`;
const WEAK = String.raw`this is|i am|i'm|i’m|(?:speak|spoke|speaking|talk|talked|talking)\s+(?:to|with)|ask|asked|tell|thanks,?|thank you,?|cheers,?|hi,?|hello,?|dear|regards,|best wishes,|my\s+(?:${FAMILY})`;
const CUE = new RegExp(String.raw`(?<![\w'’])(?:(${STRONG})|(${WEAK}))\s+`, "gi");

const TITLE = String.raw`(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+)?`;
// O'Brien, McDonald, Smith-Jones.
const WORD = String.raw`(?:[A-Z]['’])?[A-Z][a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?`;
const NAME = new RegExp(String.raw`${TITLE}${WORD}(?:\s+${WORD}){0,2}`, "y");
// After a name: where the person works.
const AFTER = /^\s+(?:at|in|from|on)\s+(?:the\s+)?(?:front desk|desk|reception|returns|support|customer services?|store|branch|counter|till|accounts)\b/i;
const NAME_BEFORE_ROLE = new RegExp(String.raw`(?<![\w'’])${WORD}(?:\s+${WORD})?(?=\s+(?:at|in|from|on)\s)`, "g");

// Capitalised words that follow these cues and are not names: common words people capitalise. (Its
// author also wrote the labelled sets, so it is not blind to them: see docs/privacy.md.)
const NOT_NAME = new Set(
  (
    "I I'm Im The A An It This That These Those Here There Just Fine Happy Not Sorry So Very Really Also Still Glad Sure " +
    "Okay Ok Good Great Well Yes No All Any Some Everyone Everybody Team Support Customer Service Sir Madam Guys Folks " +
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August " +
    "September October November December Today Tomorrow Again Please Thanks Thank Hello Hi Hey Dear"
  ).split(" "),
);

let nlp: WinkMethods | null = null;

/** True when wink-nlp tags `word`, read in `context`, as a proper noun. */
function taggedProper(context: string, word: string): boolean {
  nlp ??= winkNLP(model);
  const doc = nlp.readDoc(context);
  const values = doc.tokens().out() as string[];
  const tags = doc.tokens().out(nlp.its.pos) as string[];
  const i = values.indexOf(word);
  return i >= 0 && tags[i] === "PROPN";
}

function trimTrailingCommon(words: string[]): string[] {
  while (words.length > 0 && NOT_NAME.has(words[words.length - 1] ?? "")) words.pop();
  return words;
}

/**
 * Tagger confirmations per call: the tagger is the costly step (≈0.1 ms each), so a text crowded
 * with cues is bounded; past the budget a cued capitalised word is masked unconfirmed (fail closed).
 */
export const TAGGER_BUDGET = 64;

/** Person names in `text` (English cues); spans cover the title, if any, and up to three name words. */
export function findNames(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  let budget = TAGGER_BUDGET;
  const confirmed = (context: string, word: string) => budget-- <= 0 || taggedProper(context, word);
  for (const m of text.matchAll(CUE)) {
    const at = m.index + m[0].length;
    NAME.lastIndex = at;
    const n = NAME.exec(text);
    if (!n) continue;
    const title = /^(?:Mr|Mrs|Ms|Miss|Dr|Prof)\b/.test(n[0]);
    const words = trimTrailingCommon(n[0].split(/\s+/));
    const first = words.find((w) => !/^(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?$/.test(w));
    if (!first || NOT_NAME.has(first)) continue;
    const strong = m[1] !== undefined || title;
    if (!strong && !confirmed(text.slice(m.index, at + n[0].length + 40), first)) continue;
    const start = /^(?:mr|mrs|ms|miss|dr|prof)\.?\s/i.test(m[0]) ? m.index : at;
    spans.push({ kind: "name", start, end: at + words.join(" ").length });
  }
  for (const m of text.matchAll(NAME_BEFORE_ROLE)) {
    const end = m.index + m[0].length;
    if (!AFTER.test(text.slice(end, end + 40))) continue;
    const words = m[0].split(/\s+/);
    if (words.some((w) => NOT_NAME.has(w))) continue;
    if (!confirmed(text.slice(m.index, end + 40), words[0] ?? "")) continue;
    spans.push({ kind: "name", start: m.index, end });
  }
  return spans;
}
