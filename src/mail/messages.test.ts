/**
 * The messages' words: every catalog has every message with the English placeholders, values are
 * escaped in the HTML part, and an unknown language falls back to English.
 */
import { expect, test } from "bun:test";
import { MAIL_CATALOG, mailLanguageOf } from "./catalog.ts";
import { composeMessage } from "./messages.ts";

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test("every language has every message, with the same placeholders as English", () => {
  const en = MAIL_CATALOG.en!;
  expect(Object.keys(MAIL_CATALOG).sort()).toEqual(["ar", "de", "en", "es", "fr", "it", "nl", "pl", "pt"]);
  for (const [lang, words] of Object.entries(MAIL_CATALOG)) {
    expect(typeof words.footer).toBe("string");
    for (const kind of ["invite", "password_reset", "test"] as const) {
      for (const part of ["subject", "intro", "action", "after"] as const) {
        expect({ lang, kind, part, p: placeholders(words[kind][part]) }).toEqual({ lang, kind, part, p: placeholders(en[kind][part]) });
      }
    }
  }
});

test("values are escaped in the HTML part, the link is in both parts, and the language falls back to English", () => {
  const url = "https://earshot.example.com/console/invite/?token=abc&x=1";
  const m = composeMessage({
    kind: "invite",
    lang: "sv",
    url,
    values: { workspace: '<script>alert("x")</script>', role: "admin", expires: "2026-12-05T10:00:00Z" },
  });
  expect(m.lang).toBe("en");
  expect(m.subject).toBe('You are invited to <script>alert("x")</script> on Earshot');
  expect(m.html).not.toContain("<script>");
  expect(m.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  expect(m.html).toContain('href="https://earshot.example.com/console/invite/?token=abc&amp;x=1"');
  expect(m.text).toContain(url);
  expect(m.text).toContain("December 5, 2026 at 10:00 AM UTC");
  const ar = composeMessage({ kind: "test", lang: "ar", url, values: { actor: "Ada" } });
  expect(ar.html).toContain('dir="rtl"');
  expect([mailLanguageOf("de_DE.UTF-8"), mailLanguageOf("pt-BR"), mailLanguageOf("sv"), mailLanguageOf(null)]).toEqual(["de", "pt", null, null]);
});
