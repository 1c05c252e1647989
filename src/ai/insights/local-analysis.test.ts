import { describe, expect, test } from "bun:test";
import { isActionable } from "./actionable.ts";
import { findHedges, scoreClarity } from "./clarity.ts";
import { findProblemCues, findRequestCues } from "./cues.ts";
import { extractCustomFields, fieldNameWords } from "./custom-fields.ts";
import { generateFollowUps, resolveProbing } from "./follow-ups.ts";
import { MAX_SUMMARY_CHARS, summarise } from "./summary.ts";
import { parseText } from "./text.ts";
import { extractKeyTopics } from "./topics.ts";
import type { Sentiment } from "./types.ts";

function analyse(text: string) {
  const parsed = parseText(text);
  const cues = [...findRequestCues(parsed), ...findProblemCues(parsed)];
  return { parsed, cues, topics: extractKeyTopics(parsed), actionable: isActionable(parsed, cues) };
}

describe("key topics", () => {
  test("noun phrases, lowercase, longest form, no opinion words", () => {
    expect(analyse("The checkout page keeps crashing when I pay with my card.").topics).toEqual(["checkout page", "card"]);
    expect(analyse("Great hotel, friendly staff. The Wi-Fi was slow.").topics).toEqual(["hotel", "staff", "wi-fi"]);
  });

  test("deduplicated by lemma, most frequent first, at most five", () => {
    const { topics } = analyse(
      "The invoice was wrong. The app, the dashboard, the export, the login page and the search " + "all need work, and the invoices never match the receipts.",
    );
    expect(topics[0]).toBe("invoice");
    expect(topics.length).toBe(5);
    expect(new Set(topics).size).toBe(5);
    for (const t of topics) expect(t).toBe(t.toLowerCase());
  });

  test("vague answers have no topics", () => {
    expect(analyse("I don't know, stuff was ok I guess.").topics).toEqual([]);
    expect(analyse("").topics).toEqual([]);
  });
});

describe("summary", () => {
  test("short answers are kept whole", () => {
    const { parsed, cues } = analyse("Nice room. Slow check-in.");
    expect(summarise(parsed, cues)).toBe("Nice room. Slow check-in.");
  });

  test("at most two sentences, in original order, preferring requests and problems", () => {
    const text =
      "We stayed for a week in June. The weather was warm. The pool was nice and the pool bar " +
      "was fun. Please fix the pool heater, the pool was freezing in the mornings. We had dinner in town.";
    const { parsed, cues } = analyse(text);
    const summary = summarise(parsed, cues);
    const sentences = parseText(summary).sentences;
    expect(sentences.length).toBeLessThanOrEqual(2);
    expect(summary).toContain("Please fix the pool heater");
    for (const s of sentences) expect(text).toContain(s);
    expect(text.indexOf(sentences[0]!)).toBeLessThan(text.indexOf(sentences.at(-1)!) + 1);
  });

  test("an unpunctuated transcript is cut at a word boundary", () => {
    const words = Array.from({ length: 120 }, (_, i) => (i % 2 ? "checkout" : "slow")).join(" ");
    const { parsed, cues } = analyse(words);
    const summary = summarise(parsed, cues);
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS + 1);
    expect(summary.endsWith("…")).toBe(true);
    expect(summary).not.toMatch(/ …$/);
  });
});

describe("actionable", () => {
  const actionable = [
    "Please add a dark mode.",
    "It would be nice to export to PDF.",
    "You should offer a student discount.",
    "We need an API to delete projects.",
    "Can you add Spanish subtitles?",
    "Add a reminder before the trial ends.",
    "The app crashes when I open the camera.",
    "Login doesn't work with my Google account.",
    "The export gives an error.",
    "The password reset email never arrives.",
    "My order arrived broken.",
    "I hate the new layout.",
  ];
  const notActionable = [
    "The staff were lovely and the food was great.",
    "It's fine.",
    "Terrible experience, never again.",
    "I haven't used the new features yet.",
    "No crashes since the update, thanks!",
    "Works perfectly with my speaker.",
  ];
  for (const text of actionable) test(`actionable: ${text}`, () => expect(analyse(text).actionable).toBe(true));
  for (const text of notActionable) test(`not actionable: ${text}`, () => expect(analyse(text).actionable).toBe(false));

  test("cues say what fired", () => {
    const { cues } = analyse("Please add a dark mode. The app keeps crashing.");
    expect(cues).toEqual([
      { kind: "request", sentence: 0, words: "please" },
      { kind: "problem", sentence: 1, words: "crashing" },
    ]);
  });
});

describe("clarity", () => {
  test("specific answers are clear, hedged ones are not", () => {
    expect(scoreClarity(parseText("The checkout page keeps crashing when I pay with my card."))).toBe(1);
    expect(scoreClarity(parseText("It's okay."))).toBeLessThan(0.3);
    expect(scoreClarity(parseText("I don't know, maybe the stuff was ok."))).toBeLessThan(0.2);
    expect(scoreClarity(parseText(""))).toBe(0);
  });

  test("hedges lower clarity", () => {
    const plain = scoreClarity(parseText("The checkout was slow on my phone."));
    const hedged = scoreClarity(parseText("I guess the checkout was kind of slow on my phone, maybe."));
    expect(findHedges(parseText("I guess the checkout was kind of slow, maybe."))).toEqual(["maybe", "i guess", "kind of"]);
    expect(hedged).toBeLessThan(plain);
  });
});

describe("follow-up questions", () => {
  const input = (topics: string[], sentiment: Sentiment = "neutral", clarity = 0.3) => ({ clarity, topics, sentiment, actionable: false });

  test("none unless probing is on and clarity is below the threshold", () => {
    expect(generateFollowUps(input(["checkout"]), resolveProbing(false, {}))).toEqual([]);
    expect(generateFollowUps(input(["checkout"], "neutral", 0.6), resolveProbing(true, {}))).toEqual([]);
    expect(generateFollowUps(input(["checkout"], "neutral", 0.7), resolveProbing(true, { clarity_threshold: 0.8 }))).toHaveLength(1);
    expect(generateFollowUps(input(["checkout"]), resolveProbing(true, { max_follow_ups: 0 }))).toEqual([]);
  });

  test("from the answer's topics, by tone, up to max_follow_ups", () => {
    expect(generateFollowUps(input(["checkout"], "negative"), resolveProbing(true, {}))).toEqual([
      "You mentioned the checkout — what would have made it better?",
    ]);
    expect(generateFollowUps(input(["room", "staff"], "positive"), resolveProbing(true, { max_follow_ups: 3 }))).toEqual([
      "You mentioned the room — what did you like most about it?",
      "You mentioned the staff — what did you like most about it?",
      "Could you tell us a bit more — what specifically stood out to you?",
    ]);
  });

  test("generic when there are no topics, about the prompt's subject when it has one", () => {
    const settings = resolveProbing(true, { max_follow_ups: 2 });
    expect(generateFollowUps(input([]), settings)).toEqual([
      "Could you tell us a bit more — what specifically stood out to you?",
      "Could you give an example of what you mean?",
    ]);
    expect(generateFollowUps({ ...input([]), prompt: "How was the food at the hotel?" }, settings)[0]).toBe("What stood out to you about the food?");
  });

  test("out-of-range settings are clamped", () => {
    expect(resolveProbing(true, { clarity_threshold: 7, max_follow_ups: 99 })).toEqual({ enabled: true, clarityThreshold: 1, maxFollowUps: 5 });
    expect(resolveProbing(undefined, undefined)).toEqual({ enabled: false, clarityThreshold: 0.6, maxFollowUps: 1 });
  });
});

describe("custom fields", () => {
  const extract = (text: string, names: string[], sentiment: Sentiment = "neutral") => {
    const { parsed, cues, topics } = analyse(text);
    return extractCustomFields(names, parsed, { sentiment, topics, cues });
  };

  test("field names split into words", () => {
    expect(fieldNameWords("wantsCallback")).toEqual(["wants", "callback"]);
    expect(fieldNameWords("wait-minutes")).toEqual(["wait", "minutes"]);
  });

  test("yes/no fields: mentioned, negated, silent", () => {
    expect(extract("Could someone ring me about this?", ["wants_callback"])).toEqual({ wants_callback: true });
    expect(extract("No need to call me back, it is fixed.", ["wants_callback"])).toEqual({ wants_callback: false });
    expect(extract("The room was fine.", ["wants_callback", "is_returning_customer"])).toEqual({ wants_callback: false, is_returning_customer: null });
    expect(extract("I want my money back.", ["wants_refund"])).toEqual({ wants_refund: true });
  });

  test("numbers, things, people, contact details, unknown names", () => {
    expect(extract("Our table for 4 people waited forty five minutes.", ["wait_minutes", "people_count", "rating"])).toEqual({
      wait_minutes: 45,
      people_count: 4,
      rating: 4,
    });
    expect(extract("We waited half an hour.", ["wait_hours"])).toEqual({ wait_hours: 0.5 });
    expect(extract("The espresso machine stopped working.", ["product_mentioned", "issue"])).toEqual({
      product_mentioned: "espresso machine",
      issue: "espresso machine",
    });
    expect(extract("Our waiter, Marco, was great.", ["staff_name"], "positive")).toEqual({ staff_name: "Marco" });
    expect(extract("Write to jo@example.com please.", ["contact_email"])).toEqual({ contact_email: "jo@example.com" });
    expect(extract("Lovely.", ["sentiment", "favourite_colour", ""], "positive")).toEqual({ sentiment: "positive", favourite_colour: null });
  });
});
