/**
 * The redaction gate (responses/redaction.ts; issue 25): which links redact, which phone countries a
 * link's language gives, and Whisper's segments masked as one text so a value split across two
 * segments is still found. Pure functions over the real engine (src/ai/redact).
 */
import { describe, expect, test } from "bun:test";
import { maskNullable, maskSegments, maskText, phoneCountriesOf, redactionPolicyOf } from "./redaction.ts";

describe("redactionPolicyOf", () => {
  test("only redact_pii true redacts; links stored before the setting (no key) do not", () => {
    expect(redactionPolicyOf("{}")).toBeNull();
    expect(redactionPolicyOf('{"redact_pii":false,"language":"de"}')).toBeNull();
    expect(redactionPolicyOf('{"redact_pii":true}')).toEqual({ language: null });
    expect(redactionPolicyOf('{"redact_pii":true,"language":"de-AT"}')).toEqual({ language: "de-AT", phoneCountries: ["AT"] });
  });
});

describe("phoneCountriesOf", () => {
  test("the tag's region first, else the language's one country, else the engine's default (undefined)", () => {
    expect(phoneCountriesOf("en-AU")).toEqual(["AU"]);
    expect(phoneCountriesOf("es-MX")).toEqual(["MX"]);
    expect(phoneCountriesOf("fr")).toEqual(["FR"]);
    expect(phoneCountriesOf("zh-Hant-TW")).toEqual(["TW"]);
    expect(phoneCountriesOf("en")).toBeUndefined();
    expect(phoneCountriesOf("es")).toBeUndefined();
    expect(phoneCountriesOf(null)).toBeUndefined();
  });

  test("a German link finds a German national number the default countries (GB, US) do not", () => {
    const text = "Ruf mich an unter 0151 23456789 bitte";
    expect(maskText(text, { language: null })).toBe(text);
    expect(maskText(text, redactionPolicyOf('{"redact_pii":true,"language":"de"}'))).toBe("Ruf mich an unter [phone] bitte");
  });
});

describe("maskText and maskSegments", () => {
  test("no policy: unchanged; a policy: masked; null stays null", () => {
    const text = "mail me at someone@example.org";
    expect(maskText(text, null)).toBe(text);
    expect(maskText(text, { language: null })).toBe("mail me at [email]");
    expect(maskNullable(null, { language: null })).toBeNull();
  });

  test("a phone number split across two segments is masked where it starts and its rest dropped", () => {
    const segments = [
      { start_s: 0, end_s: 3, text: "call me on +44 20" },
      { start_s: 3, end_s: 6, text: "7946 0958 after six" },
      { start_s: 6, end_s: 8, text: "thanks" },
    ];
    expect(maskSegments(segments, { language: null }).map((s) => s.text)).toEqual(["call me on [phone]", "after six", "thanks"]);
    expect(maskSegments(segments, { language: null })[1]).toMatchObject({ start_s: 3, end_s: 6 });
    expect(maskSegments(segments, null)).toBe(segments);
  });
});
