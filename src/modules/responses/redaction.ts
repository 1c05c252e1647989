/**
 * @module responses/redaction
 * The one gate a respondent's free text passes before it is stored when the link's
 * `settings.redact_pii` is on (issue 25; DESIGN §13; docs/privacy.md "Where redaction runs"):
 * typed answers and typed fallbacks (intake service), follow-up answers typed or transcribed and
 * probe transcripts (intake/probing.ts), transcripts and Whisper segments (responses/processing.ts).
 * Everything else that holds answer text (insights, themes, the search index, exports, webhook
 * payloads) is derived from what these wrote, so it is masked by construction.
 */
import { type CountryCode, isSupportedCountry } from "libphonenumber-js/max";
import { type RedactOptions, redactPii } from "../../ai/redact/index.ts";

/** How one link's text is masked, or null when its `settings.redact_pii` is off (the default). */
export type RedactionPolicy = { language: string | null; phoneCountries?: CountryCode[] } | null;

/**
 * National phone numbers looked for by link language when the tag has no region (docs/privacy.md
 * "Where redaction runs"). Languages spoken across many countries (en, es, pt, ar, zh …) are not
 * listed: they keep the engine's default (GB, US) unless the tag names a region (`es-MX`).
 * International numbers (+ or 00) are found whatever the country.
 */
const COUNTRY_OF_LANGUAGE: Record<string, CountryCode> = {
  de: "DE",
  fr: "FR",
  it: "IT",
  nl: "NL",
  pl: "PL",
  sv: "SE",
  da: "DK",
  nb: "NO",
  nn: "NO",
  no: "NO",
  fi: "FI",
  cs: "CZ",
  sk: "SK",
  hu: "HU",
  ro: "RO",
  el: "GR",
  bg: "BG",
  hr: "HR",
  sl: "SI",
  et: "EE",
  lv: "LV",
  lt: "LT",
  is: "IS",
  ja: "JP",
  ko: "KR",
  tr: "TR",
  uk: "UA",
  he: "IL",
  th: "TH",
  vi: "VN",
};

/**
 * The phone countries for a BCP 47 tag: its region subtag when libphonenumber knows it (`en-AU` →
 * AU), else the language's country from the table above, else undefined (the engine's default).
 */
export function phoneCountriesOf(language: string | null): CountryCode[] | undefined {
  if (!language) return undefined;
  const parts = language.split("-");
  const region = parts
    .slice(1)
    .find((p) => /^[A-Za-z]{2}$/.test(p))
    ?.toUpperCase();
  if (region && isSupportedCountry(region)) return [region];
  const country = COUNTRY_OF_LANGUAGE[parts[0]!.toLowerCase()];
  return country ? [country] : undefined;
}

/**
 * The redaction policy of a link from its stored `settings` JSON.
 * @returns null when `redact_pii` is not true (also for links stored before the setting existed)
 */
export function redactionPolicyOf(settingsJson: string): RedactionPolicy {
  const s = JSON.parse(settingsJson) as { redact_pii?: unknown; language?: unknown };
  if (s.redact_pii !== true) return null;
  const language = typeof s.language === "string" && s.language !== "" ? s.language : null;
  const phoneCountries = phoneCountriesOf(language);
  return phoneCountries ? { language, phoneCountries } : { language };
}

/**
 * Masks `text` under `policy` (`[email]`, `[phone]`, `[card]`, `[iban]`, `[name]`, `[address]`);
 * unchanged when the policy is null. Synchronous and local (~50 µs for a typical answer,
 * docs/privacy.md); never throws, never logs.
 * @param text a typed answer, follow-up answer, transcript or segment text
 * @param language the text's own language when known (Whisper's), else the link's
 */
export function maskText(text: string, policy: RedactionPolicy, language?: string | null): string {
  if (policy === null || text === "") return text;
  return redactPii(text, optionsOf(policy, language)).text;
}

function optionsOf(policy: NonNullable<RedactionPolicy>, language?: string | null): RedactOptions {
  const lang = language ?? policy.language;
  return { ...(lang ? { language: lang } : {}), ...(policy.phoneCountries ? { phoneCountries: policy.phoneCountries } : {}) };
}

/**
 * Masks Whisper's segments (`[{start_s, end_s, text}]`) under `policy`. The segments are read as
 * one text (joined by spaces), so a value Whisper split across two segments (a phone number read
 * over a pause) is found whole: its mask goes in the segment where it starts and its rest is
 * dropped from the next. Each segment is then masked on its own as well. Unchanged when `policy`
 * is null.
 */
export function maskSegments<T extends { text: string }>(segments: T[], policy: RedactionPolicy, language?: string | null): T[] {
  if (policy === null || segments.length === 0) return segments;
  const offsets: number[] = [];
  let joined = "";
  for (const s of segments) {
    if (joined) joined += " ";
    offsets.push(joined.length);
    joined += s.text;
  }
  const { found } = redactPii(joined, optionsOf(policy, language));
  return segments.map((s, i) => {
    const start = offsets[i]!;
    const end = start + s.text.length;
    let out = "";
    let pos = start;
    for (const f of found) {
      if (f.end <= start || f.start >= end) continue;
      out += joined.slice(pos, Math.max(f.start, start));
      if (f.start >= start) out += `[${f.kind}]`;
      pos = Math.min(f.end, end);
    }
    return { ...s, text: maskText((out + joined.slice(pos, end)).trim(), policy, language) };
  });
}

/** {@link maskText} for a nullable value: null stays null. */
export function maskNullable(text: string | null, policy: RedactionPolicy, language?: string | null): string | null {
  return text === null ? null : maskText(text, policy, language);
}
