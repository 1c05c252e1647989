/**
 * Alert messages in the rule's language (issue 28 "messages in the operator's language";
 * alerts/catalog.ts): every mail language has every word, and each destination's format — chat,
 * ntfy, the generic JSON and the email — says its words in the message's language, right to left
 * for Arabic, English for a language without a catalog.
 */
import { describe, expect, test } from "bun:test";
import { MAIL_CATALOG } from "../../mail/catalog.ts";
import { ALERT_CATALOG, ALERT_LANGUAGES, alertLanguageOf } from "./catalog.ts";
import { emailMessage } from "./formats/email.ts";
import { requestFor } from "./formats/index.ts";
import { matchRule } from "./match.ts";
import { alertWordsOf } from "./catalog.ts";
import type { AlertMessage } from "./message.ts";

const URL = "https://box.example/console/responses/r1";

/** A rule "Beschwerden" (negative, keyword "Erstattung", NPS detractor) matched in `lang`. */
function messageIn(lang: string, suppressed = 0): AlertMessage {
  const answers = [{ uuid: "a", text: "Keine Erstattung bekommen", sentiment: "negative", actionable: true, nps: 2, themeUuid: "t" }];
  const conditions = [
    { type: "negative" as const },
    { type: "keyword" as const, keyword: "Erstattung" },
    { type: "nps_detractor" as const },
    { type: "theme" as const, theme_uuid: "t" },
  ];
  const match = matchRule(conditions, "all", answers, new Map([["t", "Rückzahlung"]]), alertWordsOf(lang))!;
  return {
    linkName: "Kasse",
    ruleName: "Beschwerden",
    reasons: match.reasons,
    sentiment: "negative",
    quote: "Keine Erstattung bekommen",
    responseUrl: URL,
    suppressed,
    lang,
  };
}

test("every mail language has every word of an alert, and only those languages", () => {
  expect([...ALERT_LANGUAGES].sort() as string[]).toEqual(Object.keys(MAIL_CATALOG).sort());
  expect(Object.keys(ALERT_CATALOG).sort()).toEqual([...ALERT_LANGUAGES].sort() as string[]);
  const keys = Object.keys(ALERT_CATALOG.en!).sort();
  for (const [lang, words] of Object.entries(ALERT_CATALOG)) {
    expect([lang, Object.keys(words).sort()]).toEqual([lang, keys]);
    for (const w of Object.values(words)) expect(w.trim()).not.toBe("");
  }
  expect(alertLanguageOf("ja")).toBe("en");
  expect(alertLanguageOf(null)).toBe("en");
});

describe("a German rule's message", () => {
  const m = messageIn("de", 3);

  test("reasons, title, labels and the rate-limit note are German in every chat format", () => {
    expect(m.reasons).toEqual(["Negative Stimmung", "Stichwort „Erstattung“", "NPS-Kritiker (2/10)", "Thema „Rückzahlung“"]);
    const slack = JSON.parse(requestFor({ kind: "slack", url: "https://hooks.example/x", room: null }, m, "t").body);
    expect(slack.blocks[0].text.text).toStartWith("*Alarm „Beschwerden“ für Kasse*");
    expect(slack.blocks[2].elements[0].text).toBe(`Stimmung: negativ · <${URL}|Antwort öffnen>`);
    expect(slack.blocks[3].elements[0].text).toBe("3 frühere Alarme wurden nicht gesendet (Ratenlimit).");
    const teams = JSON.parse(requestFor({ kind: "teams", url: "https://teams.example/x", room: null }, m, "t").body).attachments[0].content;
    expect(teams.body[1].facts).toEqual([
      { title: "Grund", value: m.reasons.join(" · ") },
      { title: "Stimmung", value: "negativ" },
    ]);
    expect(teams.actions[0].title).toBe("Antwort öffnen");
    const mm = JSON.parse(requestFor({ kind: "mattermost", url: "https://mm.example/x", room: null }, m, "t").body).text;
    expect(mm).toContain("**Grund:** Negative Stimmung");
    expect(mm).toContain(`[Antwort öffnen](${URL})`);
    const matrix = JSON.parse(requestFor({ kind: "matrix", url: "https://matrix.example", room: "!r:example" }, m, "t").body);
    expect(matrix.body).toStartWith("Alarm „Beschwerden“ für Kasse\nGrund: ");
    expect(matrix.formatted_body).toContain(">Antwort öffnen</a>");
    const ntfy = requestFor({ kind: "ntfy", url: "https://ntfy.example/t", room: null }, m, "t");
    expect(ntfy.body).toContain("Stimmung: negativ");
    const generic = JSON.parse(requestFor({ kind: "webhook", url: "https://auto.example/x", room: null }, m, "t").body);
    expect(generic).toMatchObject({ lang: "de", sentiment: "negative", reasons: m.reasons });
  });

  test("the email is German: subject, parts, Content-Language", () => {
    const mail = emailMessage(m);
    expect(mail.lang).toBe("de");
    expect(mail.subject).toBe("Alarm „Beschwerden“ für Kasse");
    expect(mail.text).toContain("Grund: Negative Stimmung");
    expect(mail.text).toContain("Von Earshot gesendet: Eine Alarmregel dieses Links nennt Sie als Empfänger.");
    expect(mail.html).toContain('<html lang="de" dir="ltr">');
    expect(mail.html).toContain("<strong>Stimmung:</strong> negativ");
  });
});

test("English stays as documented; Arabic is right to left; one dropped alert reads as one", () => {
  const en = messageIn("en", 1);
  expect(en.reasons).toEqual(["Negative sentiment", "Keyword “Erstattung”", "NPS detractor (2/10)", "Theme “Rückzahlung”"]);
  expect(emailMessage(en).text).toContain("1 earlier alert was not sent (rate limit).");
  expect(emailMessage(en).subject).toBe("Alert “Beschwerden” on Kasse");
  const ar = emailMessage(messageIn("ar"));
  expect(ar.html).toContain('<html lang="ar" dir="rtl">');
  expect(ar.subject).toBe("تنبيه «Beschwerden» على Kasse");
});
