/**
 * The PII redaction engine (issue 25; DESIGN §13). Real libraries, real corpus; no timing asserted
 * (speed is bench/redaction.ts's job).
 */
import { describe, expect, test } from "bun:test";
import { CHUNK, type PiiKind, redactPii } from "./index.ts";
import { loadRedactionSet, parseLabelled } from "./labelled-set.ts";

/** Redacts `text` and returns the original value of every detection, with its kind. */
function detected(text: string, language?: string): [PiiKind, string][] {
  return redactPii(text, { language }).found.map((f) => [f.kind, text.slice(f.start, f.end)]);
}

describe("redactPii masks every kind, typed and spoken", () => {
  const cases: [string, PiiKind, string, string][] = [
    ["Write to maria.lopez@example.com today.", "email", "maria.lopez@example.com", "Write to [email] today."],
    ["it's john dot smith at gmail dot com thanks", "email", "john dot smith at gmail dot com", "it's [email] thanks"],
    ["my email is john at gmail.com ok", "email", "john at gmail.com", "my email is [email] ok"],
    ["Call me on 020 7946 0958 after five.", "phone", "020 7946 0958", "Call me on [phone] after five."],
    ["US office +1 (415) 555-0132.", "phone", "+1 (415) 555-0132", "US office [phone]."],
    [
      "call me on four one five five five five zero one three two please",
      "phone",
      "four one five five five five zero one three two",
      "call me on [phone] please",
    ],
    [
      "my number is oh seven seven double oh nine hundred one two three ok",
      "phone",
      "oh seven seven double oh nine hundred one two three",
      "my number is [phone] ok",
    ],
    ["Card 4111 1111 1111 1111 was charged.", "card", "4111 1111 1111 1111", "Card [card] was charged."],
    ["Amex 378282246310005.", "card", "378282246310005", "Amex [card]."],
    ["IBAN GB82 WEST 1234 5698 7654 32 for the refund", "iban", "GB82 WEST 1234 5698 7654 32", "IBAN [iban] for the refund"],
    ["Refund to DE89370400440532013000 please.", "iban", "DE89370400440532013000", "Refund to [iban] please."],
    ["My name is Sarah Connor and I want a refund.", "name", "Sarah Connor", "My name is [name] and I want a refund."],
    ["I'm Kevin O'Brien, account holder.", "name", "Kevin O'Brien", "I'm [name], account holder."],
    ["Dave at the front desk was helpful.", "name", "Dave", "[name] at the front desk was helpful."],
    ["Ask for Dr. Emily Hart please.", "name", "Dr. Emily Hart", "Ask for [name] please."],
    ["Deliver to 221B Baker Street, London.", "address", "221B Baker Street", "Deliver to [address], London."],
    ["we live at twelve Oak Lane now", "address", "twelve Oak Lane", "we live at [address] now"],
  ];
  for (const [text, kind, value, masked] of cases) {
    test(`${kind}: ${text}`, () => {
      expect(detected(text, "en")).toEqual([[kind, value]]);
      expect(redactPii(text).text).toBe(masked);
    });
  }
});

describe("near-misses are kept", () => {
  const kept = [
    "The number on the receipt was 4111 1111 1111 1112, is that right?", // fails Luhn
    "i gave them four one one one one one one one one one one one one one one two and they said invalid",
    "The IBAN GB00 WEST 1234 5698 7654 32 was rejected.", // bad checksum
    "Order number 4839201 still hasn't arrived.",
    "My account id is 7731982244, not sure if that helps.",
    "It cost $1,299.00, version 3.12.4, on 12/03/2024 at 9:00.",
    "Tracking number 1Z999AA10123456784 shows nothing.",
    "the pin they sent was one two three four five six and it expired",
    "I looked at the website at about nine and it was down",
    "We shop at amazon.com mostly.",
    "I'm Just checking if this works.",
    "The Samsung Galaxy keeps disconnecting; Alexa too.",
    "Parking on High Street is a nightmare; Room 204 had no hot water.",
  ];
  for (const text of kept) test(text, () => expect(redactPii(text, { language: "en" })).toEqual({ text, found: [] }));
});

test("every gold value of the dev set is gone from the masked text, and offsets point at it", () => {
  for (const ex of loadRedactionSet("dev")) {
    const { text, found } = redactPii(ex.text, { language: "en" });
    for (const g of ex.gold) {
      const value = ex.text.slice(g.start, g.end);
      expect(text.includes(value)).toBe(false);
      expect(found.some((f) => f.kind === g.kind && f.start <= g.start && f.end >= g.end)).toBe(true);
    }
  }
});

test("offsets are into the original and masking rebuilds the output from them", () => {
  const text = "Hi, call 07700 900123 or mail a.b@example.com; card 4242-4242-4242-4242 — thanks Aisha!";
  const { text: masked, found } = redactPii(text);
  let rebuilt = "";
  let at = 0;
  for (const f of found) {
    expect(f.start).toBeGreaterThanOrEqual(at);
    rebuilt += `${text.slice(at, f.start)}[${f.kind}]`;
    at = f.end;
  }
  expect(rebuilt + text.slice(at)).toBe(masked);
  expect(found.map((f) => text.slice(f.start, f.end))).toEqual(["07700 900123", "a.b@example.com", "4242-4242-4242-4242", "Aisha"]);
  expect(Object.keys(found[0] ?? {}).sort()).toEqual(["end", "kind", "start"]); // never the value
});

test("idempotent: redacting masked text changes nothing", () => {
  for (const set of ["dev", "heldout"]) {
    for (const ex of loadRedactionSet(set)) {
      const once = redactPii(ex.text, { language: "en" }).text;
      expect(redactPii(once, { language: "en" })).toEqual({ text: once, found: [] });
    }
  }
});

test("names and addresses are looked for in English only; numbers and emails in every language", () => {
  const text = "My name is Sarah Connor, 42 Elm Road, sarah@example.com, +44 20 7946 0958";
  expect(detected(text, "fr").map(([k]) => k)).toEqual(["email", "phone"]);
  expect(detected(text, "en-GB").map(([k]) => k)).toEqual(["name", "address", "email", "phone"]);
});

test("a value across a window boundary is found once, whole", () => {
  // Windows end at the first space after CHUNK characters; slide the values across that point.
  for (let shift = -70; shift <= 2; shift++) {
    const text = `${"x".repeat(CHUNK + shift)} mail maria.lopez@example.com or 07700 900123 ${"y ".repeat(3000)}`;
    expect(detected(text)).toEqual([
      ["email", "maria.lopez@example.com"],
      ["phone", "07700 900123"],
    ]);
  }
});

describe("hostile input never throws and stays linear (chunked)", () => {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const alphabet = "0123456789 +-().@_abcXYZ dot at oh one double \n\t\u0000\uD800é😀[]";
  const inputs: [string, string][] = [
    ["a megabyte of one letter", "a".repeat(1_000_000)],
    ["spaced digits", "1 ".repeat(200_000)],
    ["spoken digits", "one ".repeat(100_000)],
    ["spoken email parts", "dot at ".repeat(50_000)],
    ["at signs", "@".repeat(200_000)],
    ["name cues", "thanks Bob ".repeat(10_000)],
    ["lone surrogates and nulls", "\uD800\u0000\uDFFF".repeat(50_000)],
    ["random", Array.from({ length: 200_000 }, () => alphabet[Math.floor(random() * alphabet.length)]).join("")],
  ];
  for (const [name, text] of inputs) {
    test(name, () => {
      const r = redactPii(text);
      expect(typeof r.text).toBe("string");
      for (const f of r.found) expect(f.end).toBeGreaterThan(f.start);
    });
  }
  test("not a string, or empty", () => {
    expect(redactPii("")).toEqual({ text: "", found: [] });
    expect(redactPii(undefined as unknown as string)).toEqual({ text: "", found: [] });
    expect(redactPii(42 as unknown as string)).toEqual({ text: "", found: [] });
  });
});

test("the labelled set's markup is read exactly, and a typo in a kind is refused", () => {
  expect(parseLabelled("call [[phone:020 7946 0958]], [[name:Tom]]!")).toEqual({
    text: "call 020 7946 0958, Tom!",
    gold: [
      { kind: "phone", start: 5, end: 18 },
      { kind: "name", start: 20, end: 23 },
    ],
  });
  expect(() => parseLabelled("[[phnoe:1]]")).toThrow("unknown kind");
  expect(loadRedactionSet("dev").length + loadRedactionSet("heldout").length).toBeGreaterThanOrEqual(200);
});
