/**
 * The digest's message (src/mail/digest.ts): every mail language has every word, the HTML part
 * escapes what members and respondents wrote, Arabic is right to left, an unknown language falls
 * back to English, and figures that do not apply are left out.
 */
import { expect, test } from "bun:test";
import { MAIL_CATALOG } from "./catalog.ts";
import { composeDigest, type DigestData } from "./digest.ts";
import { DIGEST_CATALOG } from "./digest-catalog.ts";

const data: DigestData = {
  workspace: "Acme & Co",
  frequency: "weekly",
  since: "2026-11-23",
  until: "2026-11-29",
  settingsUrl: "https://feedback.example.com/console/settings/",
  links: [
    {
      name: "Checkout <b>",
      url: "https://feedback.example.com/console/links/0b6f0c1e-1111-4222-8333-944455556666/dashboard",
      responses: 12,
      previous_responses: 15,
      completion_rate: 0.75,
      nps: -10,
      sentiment: { positive: 3, neutral: 4, negative: 5 },
      sentiment_shift: -8,
      themes: [{ label: "Shipping <costs>", count: 4, is_new: true, quote: 'It said "free" & then <script>' }],
    },
    {
      name: "Quiet link",
      url: "https://feedback.example.com/console/links/x/dashboard",
      responses: 1,
      previous_responses: 1,
      completion_rate: null,
      nps: null,
      sentiment: { positive: 0, neutral: 0, negative: 0 },
      sentiment_shift: null,
      themes: [],
    },
  ],
};

test("every mail language has every word of the digest", () => {
  expect(Object.keys(DIGEST_CATALOG).sort()).toEqual(Object.keys(MAIL_CATALOG).sort());
  const keys = Object.keys(DIGEST_CATALOG.en!).sort();
  for (const [lang, words] of Object.entries(DIGEST_CATALOG)) {
    expect([lang, Object.keys(words).sort()]).toEqual([lang, keys]);
    for (const w of Object.values(words)) expect(w.trim().length).toBeGreaterThan(0);
  }
});

test("the English digest: figures per link, themes with their quote, HTML escaped, absent figures left out", () => {
  const m = composeDigest(data, "en");
  expect(m.subject).toBe("Earshot weekly digest: Acme & Co, 2026-11-23 – 2026-11-29");
  expect(m.text).toContain("- Responses: 12 (previous period 15, -3)\n- Completion rate: 75 %\n- NPS: -10\n");
  expect(m.text).toContain("- Sentiment: 3 positive, 4 neutral, 5 negative (net sentiment -8 points against the previous period)");
  expect(m.text).toContain('  * Shipping <costs> (new): 4\n    “It said "free" & then <script>”');
  expect(m.text).toContain("## Quiet link\n- Responses: 1 (previous period 1, ±0)\n- Sentiment: 0 positive, 0 neutral, 0 negative\n");
  expect(m.html).toContain("Checkout &lt;b&gt;");
  expect(m.html).toContain('<li>Shipping &lt;costs&gt; (new): 4<br><q style="color:#444">It said &quot;free&quot; &amp; then &lt;script&gt;</q></li>');
  expect(m.html).not.toContain("<script>");
  expect(m.html).toContain('<html lang="en" dir="ltr">');
  expect(m.html).toContain(`href="${data.links[0]!.url}"`);
});

test("Arabic is right to left; a language without a catalog falls back to English", () => {
  const ar = composeDigest(data, "ar");
  expect(ar.lang).toBe("ar");
  expect(ar.html).toContain('<html lang="ar" dir="rtl">');
  expect(composeDigest(data, "de").subject).toBe("Earshot – wöchentliche Zusammenfassung: Acme & Co, 2026-11-23 – 2026-11-29");
  const ja = composeDigest({ ...data, frequency: "daily" }, "ja");
  expect(ja.lang).toBe("en");
  expect(ja.subject).toBe("Earshot daily digest: Acme & Co, 2026-11-29");
});
