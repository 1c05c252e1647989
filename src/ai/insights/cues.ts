/**
 * @module ai/insights/cues
 * Rule-based detection of what makes an answer actionable, on wink-nlp tokens (normal form,
 * lemma, POS, negation scope):
 *
 * - **Requests and suggestions**: "please" + verb; "should"/"ought to"; "need(s)"; "want(s) a…",
 *   "wish"; "would like/love"; "would be nice/great/useful/…"; "would help"; "suggest(ion)";
 *   "can you / could we / would it…?" questions; "how about", "why not"; and sentences that open
 *   with a request verb in base form ("Add…", "Fix…", "Let users…", "Maybe add…").
 * - **Problem reports**: problem words not under negation ("crash", "freeze", "broken", "error",
 *   "missing", "late", "rude", "overcooked", "timing out", "charged twice", "out of order", …);
 *   a negated function verb ("doesn't *work*", "never *arrives*", "won't *load*", "can't *find*");
 *   "can't/won't" + verb.
 *
 * Complaints about a named thing are the third rule; they need sentiment, see ./actionable.ts.
 */
import type { ParsedText, Token } from "./text.ts";

/** A rule that fired: which kind, in which sentence, on which words. */
export interface Cue {
  kind: "request" | "problem";
  sentence: number;
  words: string;
}

/** Problem words, matched on lemma or normal form, when not negated ("no crashes" is fine). */
const PROBLEM_WORDS = new Set([
  "crash",
  "crashes",
  "crashing",
  "crashed",
  "freeze",
  "freezes",
  "frozen",
  "bug",
  "bugs",
  "buggy",
  "glitch",
  "glitchy",
  "error",
  "errors",
  "fail",
  "failure",
  "broke",
  "broken",
  "jam",
  "jams",
  "disconnect",
  "disconnecting",
  "lag",
  "laggy",
  "lags",
  "timeout",
  "leak",
  "missing",
  "wrong",
  "late",
  "delayed",
  "delay",
  "dirty",
  "damaged",
  "overcharged",
  "reboot",
  "reboots",
  "drain",
  "drains",
  "lost",
  "stuck",
  "slow",
  "unresponsive",
  "overcooked",
  "undercooked",
  "stale",
  "burnt",
  "soggy",
  "noisy",
  "loud",
  "rude",
  "outdated",
  "confusing",
  "expensive",
  "overpriced",
  "unusable",
  "useless",
  "unhelpful",
  "ignored",
  "cancelled",
  "canceled",
  "crackles",
  "crackle",
  "flickers",
  "flickering",
  "overheats",
  "overheating",
  "impossible",
  "unreliable",
  "defective",
  "faulty",
]);

/** Multi-word problem phrases on normal forms. */
const PROBLEM_PHRASES = [
  "timing out",
  "timed out",
  "times out",
  "time out",
  "charged twice",
  "charged me twice",
  "double charged",
  "out of order",
  "logs me out",
  "hung up",
  "hangs up",
  "stopped working",
  "stopped charging",
  "stops working",
  "no longer",
  "takes forever",
  "took forever",
];

/** Verbs whose negation reports a fault: "doesn't work", "never arrives", "won't load". */
const FUNCTION_VERBS = new Set([
  "work",
  "load",
  "open",
  "respond",
  "connect",
  "sync",
  "arrive",
  "come",
  "update",
  "start",
  "save",
  "print",
  "charge",
  "pair",
  "show",
  "send",
  "find",
  "log",
  "turn",
  "install",
  "download",
  "upload",
  "play",
  "help",
  "answer",
  "reply",
  "fix",
  "listen",
  "call",
  "warn",
  "refresh",
  "register",
  "accept",
  "recognise",
  "recognize",
  "detect",
]);

/** Adjectives that make "would be …" a suggestion. */
const SUGGESTION_ADJECTIVES = new Set([
  "nice",
  "great",
  "good",
  "useful",
  "helpful",
  "handy",
  "better",
  "cool",
  "awesome",
  "ideal",
  "easier",
  "amazing",
  "lovely",
  "perfect",
  "smart",
  "convenient",
  "brilliant",
  "fantastic",
]);

/** Verbs that, opening a sentence in base form, make it a request ("Add a reminder…"). */
const REQUEST_VERBS = new Set([
  "add",
  "fix",
  "make",
  "let",
  "bring",
  "allow",
  "include",
  "show",
  "give",
  "offer",
  "remove",
  "change",
  "improve",
  "support",
  "provide",
  "consider",
  "put",
  "stop",
  "enable",
  "update",
  "send",
  "hire",
  "train",
  "extend",
  "lower",
  "reduce",
  "increase",
  "return",
  "replace",
  "look",
  "reconsider",
  "repair",
  "move",
  "simplify",
  "integrate",
  "share",
  "speed",
  "drop",
  "rename",
]);

/** Words skipped before a sentence's request verb ("Maybe add…", "Please, just fix…"). */
const LEAD_IN_WORDS = new Set([
  "please",
  "maybe",
  "perhaps",
  "just",
  "also",
  "and",
  "so",
  "then",
  "pls",
  "plz",
  "kindly",
  "definitely",
  "really",
  "oh",
  "ok",
  "okay",
  "hi",
  "hello",
  "but",
  "seriously",
  "honestly",
]);

const REQUEST_PHRASES = [
  "how about",
  "what about",
  "why not",
  "is there a way",
  "any chance",
  "ought to",
  "would like",
  "would love",
  "like to see",
  "love to see",
  "feature request",
  "would help",
  "can you",
  "could you",
  "can we",
  "could we",
  "would you",
  "will you",
];

const QUESTION_OPENERS = new Set(["can", "could", "would", "will"]);

function sentencesOf(parsed: ParsedText): Token[][] {
  const out: Token[][] = parsed.sentences.map(() => []);
  for (const t of parsed.tokens) out[t.sentence]?.push(t);
  return out;
}

function hasPhrase(words: Token[], phrases: string[]): string | null {
  const joined = ` ${words.map((w) => w.normal).join(" ")} `;
  return phrases.find((p) => joined.includes(` ${p} `)) ?? null;
}

function requestCueIn(tokens: Token[]): string | null {
  const words = tokens.filter((t) => t.type === "word");
  const phrase = hasPhrase(words, REQUEST_PHRASES);
  if (phrase) return phrase;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.normal === "please" && words.some((v) => v.pos === "VERB")) return "please";
    if (w.normal === "should") return "should";
    if ((w.normal === "need" || w.normal === "needs") && !w.isNegated) return w.normal;
    if ((w.normal === "want" || w.normal === "wants" || w.normal === "wish") && !w.isNegated) {
      return w.normal;
    }
    if (w.lemma === "suggest" || w.lemma === "suggestion") return w.normal;
    if (w.normal === "would" || w.normal === "could") {
      const rest = words.slice(i + 1, i + 4).filter((v) => v.pos !== "ADV" && v.normal !== "be");
      const adjective = rest[0];
      if (words[i + 1]?.normal === "be" && adjective && SUGGESTION_ADJECTIVES.has(adjective.normal)) {
        return `${w.normal} be ${adjective.normal}`;
      }
    }
    if (i === 0 && QUESTION_OPENERS.has(w.normal) && tokens[tokens.length - 1]?.value === "?") {
      return `${w.normal} …?`;
    }
  }
  const opener = words.find((w) => !LEAD_IN_WORDS.has(w.normal));
  if (opener && opener.pos === "VERB" && REQUEST_VERBS.has(opener.normal)) return opener.normal;
  return null;
}

function problemCueIn(tokens: Token[]): string | null {
  const words = tokens.filter((t) => t.type === "word");
  const phrase = hasPhrase(words, PROBLEM_PHRASES);
  if (phrase) return phrase;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (!w.isNegated && (PROBLEM_WORDS.has(w.normal) || PROBLEM_WORDS.has(w.lemma))) return w.normal;
    if (w.isNegated && (w.pos === "VERB" || w.pos === "AUX") && FUNCTION_VERBS.has(w.lemma)) {
      return `not ${w.normal}`;
    }
    const next = words[i + 1];
    const verb = words[i + 2];
    if ((w.normal === "can" || w.normal === "will") && next?.normal === "not" && verb?.pos === "VERB") {
      return `${w.normal} not ${verb.normal}`;
    }
  }
  return null;
}

/**
 * Finds requests and suggestions, at most one cue per sentence.
 * @returns cues such as `{ kind: "request", sentence: 0, words: "please" }`; empty when none.
 */
export function findRequestCues(parsed: ParsedText): Cue[] {
  return sentencesOf(parsed).flatMap((tokens, sentence) => {
    const words = requestCueIn(tokens);
    return words ? [{ kind: "request" as const, sentence, words }] : [];
  });
}

/**
 * Finds reports of concrete problems, at most one cue per sentence.
 * @returns cues such as `{ kind: "problem", sentence: 0, words: "crashing" }`; empty when none.
 */
export function findProblemCues(parsed: ParsedText): Cue[] {
  return sentencesOf(parsed).flatMap((tokens, sentence) => {
    const words = problemCueIn(tokens);
    return words ? [{ kind: "problem" as const, sentence, words }] : [];
  });
}
