/**
 * @module test/e2e/intake-i18n.test
 * The intake page in the respondent's language (issue 17, docs/intake.md "Languages"), against a
 * real server (from source) in Chromium: a link answered in German (chosen by `Accept-Language`)
 * and one in Arabic (the link's `settings.language`, right to left, screenshot at phone width),
 * no English UI string left on either (rendered text compared with the English catalog's values),
 * a switch of language mid-way that keeps every answer, and the paused and 404 pages in the
 * respondent's language. Screenshots go to `test-results/`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { CATALOGS } from "../../src/http/intake-language.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { REPO_DIR, startServer, type RunningServer } from "../helpers/process.ts";
import { answerTo, api, createWorkspace, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const STEP_MS = 20_000;
const SHOTS = path.join(REPO_DIR, "test-results");

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let browser: BrowserContext;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  browser = await launchBrowser({ microphone: false });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

/** Fixed texts of the English catalog (placeholders cut out), at least 6 characters long. */
function englishFragments(lang: string): string[] {
  const target = JSON.stringify(CATALOGS[lang]);
  const texts = Object.values(CATALOGS.en!).flatMap((entry) => (typeof entry === "string" ? [entry] : Object.values(entry)));
  return [...new Set(texts.flatMap((text) => text.split(/\{\w+\}/)).map((f) => f.trim()))].filter(
    (fragment) => fragment.length >= 6 && !target.includes(fragment),
  );
}

/** Everything the page shows or announces: visible text, and labels, placeholders and titles. */
async function uiText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const attrs = [...document.querySelectorAll("[aria-label], [placeholder], [title]")].flatMap((el) =>
      ["aria-label", "placeholder", "title"].map((a) => el.getAttribute(a) ?? ""),
    );
    return [document.title, document.body.innerText, ...attrs].join("\n");
  });
}

/** English catalog texts on the page (none expected). */
async function englishOn(page: Page, lang: string): Promise<string[]> {
  const text = await uiText(page);
  return englishFragments(lang).filter((fragment) => text.includes(fragment));
}

const QUESTIONS = (p: Record<string, string>) => [
  { prompt: p.text, type: "text", required: true },
  { prompt: p.choice, type: "multiple_choice", required: true, configuration: { options: ["A", "B", "C"] } },
  { prompt: p.rating, type: "rating", required: true, configuration: { scale_type: "stars", max_value: 5 } },
  { prompt: p.number, type: "number", configuration: { min: 1, max: 1000 } },
  { prompt: p.yesNo, type: "yes_no", required: true },
];

describe("the intake page in the respondent's language", () => {
  test(
    "German from Accept-Language: every word German, plurals, errors, answers stored",
    async () => {
      const P = {
        text: "Was hat Ihnen gefallen?",
        choice: "Welche Variante?",
        rating: "Wie bewerten Sie uns?",
        number: "Wie viele Personen?",
        yesNo: "Würden Sie wiederkommen?",
      };
      const link = await api(server, apiKey, "POST", "links/", { name: "Rückmeldung", questions: QUESTIONS(P) });
      const page = await browser.newPage();
      await page.setExtraHTTPHeaders({ "accept-language": "de-DE,de;q=0.9,en;q=0.5" });
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await page.goto(link.public_url);
        expect(await page.getAttribute("html", "lang")).toBe("de");
        await page.getByLabel(P.text).waitFor({ timeout: STEP_MS });
        expect(await page.getByLabel("Sprache").inputValue()).toBe("de");
        // An error in German, announced by the alert region.
        await page.getByRole("button", { name: "Weiter" }).click();
        await expect(page.getByRole("alert").textContent()).resolves.toBe("Bitte beantworten Sie diese Frage, um fortzufahren.");
        expect(await page.locator(".progress-text").textContent()).toBe("Frage 1 von 5");
        expect(await englishOn(page, "de")).toEqual([]);
        await page.screenshot({ path: path.join(SHOTS, "intake-de-error-390.png"), fullPage: true });
        await page.getByLabel(P.text).fill("Die schnelle Auswertung.");
        await page.getByRole("button", { name: "Weiter" }).click();
        await page.getByRole("radio", { name: "B" }).check();
        await page.getByRole("button", { name: "Weiter" }).click();
        // Plural forms: "1 Stern", "4 Sterne".
        await page.getByRole("radio", { name: "1 Stern", exact: true }).waitFor({ timeout: STEP_MS });
        await page.getByRole("radio", { name: "4 Sterne" }).check();
        await page.getByRole("button", { name: "Weiter" }).click();
        await page.getByLabel(P.number).fill("1500");
        await page.getByRole("button", { name: "Weiter" }).click();
        await expect(page.getByRole("alert").textContent()).resolves.toBe("Bitte geben Sie eine Zahl von 1 bis 1.000 ein.");
        expect(await page.getByText("Eine Zahl von 1 bis 1.000.").count()).toBe(1);
        await page.getByLabel(P.number).fill("12");
        await page.getByRole("button", { name: "Weiter" }).click();
        await page.getByRole("radio", { name: "Ja" }).check();
        expect(await englishOn(page, "de")).toEqual([]);
        await page.getByRole("button", { name: "Absenden" }).click();
        await page.getByText("Vielen Dank für Ihre Antwort!").waitFor({ timeout: STEP_MS });
        expect(await page.locator(".thanks-time").textContent()).toMatch(/^Gesendet am \d{1,2}\. \S+ \d{4} um \d{2}:\d{2}\.$/);
        expect(await englishOn(page, "de")).toEqual([]);
        await page.screenshot({ path: path.join(SHOTS, "intake-de-thanks-390.png"), fullPage: true });
      } finally {
        await page.close();
      }
      const [response] = (await api(server, apiKey, "GET", `responses/?link=${link.uuid}`)).results;
      expect([
        answerTo(response, P.text).value,
        answerTo(response, P.choice).value,
        answerTo(response, P.rating).value,
        answerTo(response, P.number).value,
        answerTo(response, P.yesNo).value,
      ]).toEqual(["Die schnelle Auswertung.", "B", 4, 12, true]);
    },
    TIMEOUT_MS,
  );

  test(
    "Arabic from the link's settings.language: right to left, mirrored, every word Arabic",
    async () => {
      const P = { text: "ما الذي أعجبك؟", choice: "أي خيار تفضّل؟", rating: "كيف تقيّمنا؟", number: "كم عدد الأشخاص؟", yesNo: "هل ستعود مرة أخرى؟" };
      const link = await api(server, apiKey, "POST", "links/", {
        name: "رأيك يهمنا",
        settings: { language: "ar", description: "استبيان قصير من خمسة أسئلة." },
        questions: QUESTIONS(P),
      });
      expect(link.settings.language).toBe("ar");
      const page = await browser.newPage();
      await page.setExtraHTTPHeaders({ "accept-language": "en-US,en;q=0.9" });
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await page.goto(link.public_url);
        expect([await page.getAttribute("html", "lang"), await page.getAttribute("html", "dir")]).toEqual(["ar", "rtl"]);
        const input = page.getByLabel(P.text);
        await input.waitFor({ timeout: STEP_MS });
        // Mirrored: the label starts at the right edge, Back sits right of Next... once shown.
        const box = (await page.locator(".question .prompt").first().boundingBox())!;
        const card = (await page.locator("#earshot-app").boundingBox())!;
        expect(card.x + card.width - (box.x + box.width)).toBeLessThan(40);
        await page.getByRole("button", { name: "التالي" }).click();
        await expect(page.getByRole("alert").textContent()).resolves.toBe("يُرجى الإجابة عن هذا السؤال للمتابعة.");
        await input.fill("سرعة الخدمة");
        await page.getByRole("button", { name: "التالي" }).click();
        await page.getByRole("radio", { name: "C" }).check();
        await page.getByRole("button", { name: "التالي" }).click();
        await page.getByRole("radio", { name: "نجمتان" }).check();
        const back = (await page.getByRole("button", { name: "السابق" }).boundingBox())!;
        const next = (await page.getByRole("button", { name: "التالي" }).boundingBox())!;
        expect(back.x).toBeGreaterThan(next.x);
        expect(await englishOn(page, "ar")).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
        await page.screenshot({ path: path.join(SHOTS, "intake-ar-rtl-390.png"), fullPage: true });
        await page.getByRole("button", { name: "التالي" }).click();
        await page.getByRole("button", { name: "التالي" }).click();
        await page.getByRole("radio", { name: "لا" }).check();
        await page.getByRole("button", { name: "إرسال" }).click();
        await page.getByText("شكرًا على إجابتك!").waitFor({ timeout: STEP_MS });
        expect(await englishOn(page, "ar")).toEqual([]);
      } finally {
        await page.close();
      }
      const [response] = (await api(server, apiKey, "GET", `responses/?link=${link.uuid}`)).results;
      expect([
        answerTo(response, P.text).value,
        answerTo(response, P.choice).value,
        answerTo(response, P.rating).value,
        answerTo(response, P.yesNo).value,
      ]).toEqual(["سرعة الخدمة", "C", 2, false]);
    },
    TIMEOUT_MS,
  );

  test(
    "switching language mid-way keeps every answer, typed or chosen, and the next visit keeps the choice",
    async () => {
      const P = {
        text: "What did you like?",
        choice: "Which variant?",
        rating: "How do you rate us?",
        number: "How many people?",
        yesNo: "Would you come back?",
      };
      const link = await api(server, apiKey, "POST", "links/", { name: "Switching", questions: QUESTIONS(P) });
      const page = await browser.newPage();
      await page.setExtraHTTPHeaders({ "accept-language": "en-US,en;q=0.9" });
      try {
        await page.goto(link.public_url);
        await page.getByLabel(P.text).fill("Quick answers.");
        await page.getByRole("button", { name: "Next" }).click();
        await page.getByRole("radio", { name: "A" }).check();
        await page.getByRole("button", { name: "Next" }).click();
        await page.getByRole("radio", { name: "3 stars" }).check();
        // Switch while on the third question, to German, then to French.
        await page.getByLabel("Language").focus();
        await page.getByLabel("Language").selectOption("de");
        await page.getByRole("radio", { name: "3 Sterne" }).waitFor({ timeout: STEP_MS });
        expect(await page.getByRole("radio", { name: "3 Sterne" }).isChecked()).toBe(true);
        expect(await page.getByLabel("Sprache").evaluate((el) => el === document.activeElement)).toBe(true);
        expect(await page.locator(".progress-text").textContent()).toBe("Frage 3 von 5");
        await page.getByRole("button", { name: "Zurück" }).click();
        expect(await page.getByRole("radio", { name: "A" }).isChecked()).toBe(true);
        await page.getByRole("button", { name: "Zurück" }).click();
        expect(await page.getByLabel(P.text).inputValue()).toBe("Quick answers.");
        await page.getByLabel("Sprache").selectOption("fr");
        await page.getByRole("button", { name: "Suivant" }).waitFor({ timeout: STEP_MS });
        expect(await page.getByLabel(P.text).inputValue()).toBe("Quick answers.");
        expect(await englishOn(page, "fr")).toEqual([]);
        await page.getByLabel(P.text).fill("Quick answers, really.");
        await page.getByRole("button", { name: "Suivant" }).click();
        await page.getByRole("button", { name: "Suivant" }).click();
        await page.getByRole("button", { name: "Suivant" }).click();
        await page.getByRole("button", { name: "Suivant" }).click();
        await page.getByRole("radio", { name: "Oui" }).check();
        await page.getByRole("button", { name: "Envoyer" }).click();
        await page.getByText("Merci pour votre réponse !").waitFor({ timeout: STEP_MS });
        // The choice is remembered: the next page load is rendered in French by the server.
        const html = await page.evaluate(async (url) => (await fetch(url)).text(), link.public_url);
        expect(html).toContain('<html lang="fr" dir="ltr">');
      } finally {
        await page.close();
      }
      const [response] = (await api(server, apiKey, "GET", `responses/?link=${link.uuid}`)).results;
      expect([
        answerTo(response, P.text).value,
        answerTo(response, P.choice).value,
        answerTo(response, P.rating).value,
        answerTo(response, P.yesNo).value,
      ]).toEqual(["Quick answers, really.", "A", 3, true]);
    },
    TIMEOUT_MS,
  );

  test(
    "a link with German translations shows them on a German page; answers keep the source values",
    async () => {
      const media = (name: string) => `http://127.0.0.1:${server.port}/test-media/${name}.png`;
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Feedback",
        settings: { language: "de", description: "Two quick questions.", thankYouMessage: "Thanks a lot!" },
        translations: { de: { name: "Rückmeldung", description: "Zwei kurze Fragen.", thankYouMessage: "Vielen Dank!" } },
        questions: [
          {
            prompt: "Which plan?",
            type: "multiple_choice",
            required: true,
            configuration: { options: ["Free", "Team"] },
            translations: { de: { prompt: "Welcher Tarif?", options: { Free: "Kostenlos" } } },
          },
          {
            prompt: "Pick a theme",
            type: "image_choice",
            configuration: {
              cards: [
                { id: "sea", label: "Sea", media_url: media("sea") },
                { id: "forest", label: "Forest", media_url: media("forest") },
              ],
            },
            translations: { de: { prompt: "Wählen Sie ein Motiv", cards: { sea: "Meer", forest: "Wald" } } },
          },
        ],
      });
      await browser.clearCookies(); // forget the language chosen in the test before
      const page = await browser.newPage();
      await page.setExtraHTTPHeaders({ "accept-language": "en-US,en;q=0.9" });
      try {
        await page.goto(link.public_url);
        expect(await page.title()).toBe("Rückmeldung");
        expect(await page.locator(".page-header .description").textContent()).toBe("Zwei kurze Fragen.");
        await page.getByRole("radiogroup", { name: "Welcher Tarif?" }).waitFor({ timeout: STEP_MS });
        // An untranslated option keeps its source text.
        await page.getByRole("radio", { name: "Team" }).waitFor({ timeout: STEP_MS });
        await page.getByRole("radio", { name: "Kostenlos" }).check();
        await page.getByRole("button", { name: "Weiter" }).click();
        await page.getByRole("radio", { name: "Wald" }).check();
        // The respondent switches to English: the source texts, the choice kept.
        await page.getByLabel("Sprache").selectOption("en");
        expect(await page.getByRole("radio", { name: "Forest" }).isChecked()).toBe(true);
        expect(await page.locator(".page-header h1").textContent()).toBe("Feedback");
        await page.getByLabel("Language").selectOption("de");
        await page.getByRole("button", { name: "Absenden" }).click();
        await page.getByText("Vielen Dank!").waitFor({ timeout: STEP_MS });
      } finally {
        await page.close();
      }
      const [response] = (await api(server, apiKey, "GET", `responses/?link=${link.uuid}`)).results;
      expect([answerTo(response, "Which plan?").value, answerTo(response, "Pick a theme").value]).toEqual(["Free", "forest"]);
    },
    TIMEOUT_MS,
  );

  test(
    "translations in a language with no catalog (Swedish) are shown to a Swedish respondent; the page's own words fall back to English",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Feedback",
        translations: { sv: { name: "Återkoppling" } },
        questions: [
          {
            prompt: "Which plan?",
            type: "multiple_choice",
            configuration: { options: ["Free", "Team"] },
            translations: { sv: { prompt: "Vilken plan?", options: { Free: "Gratis" } } },
          },
        ],
      });
      await browser.clearCookies();
      const page = await browser.newPage();
      await page.setExtraHTTPHeaders({ "accept-language": "sv-SE,sv;q=0.9" });
      try {
        await page.goto(link.public_url);
        expect(await page.title()).toBe("Återkoppling");
        await page.getByRole("radiogroup", { name: "Vilken plan?" }).waitFor({ timeout: STEP_MS });
        await page.getByRole("radio", { name: "Gratis" }).waitFor({ timeout: STEP_MS });
        await page.getByRole("button", { name: "Submit" }).waitFor({ timeout: STEP_MS }); // no Swedish catalog: English words
        // Choosing a language on the page shows the operator's texts in that language (here: the source).
        await page.getByLabel("Language").selectOption("de");
        await page.getByRole("radiogroup", { name: "Which plan?" }).waitFor({ timeout: STEP_MS });
      } finally {
        await page.close();
      }
    },
    TIMEOUT_MS,
  );

  test(
    "the 404 and paused pages speak the respondent's language",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", { name: "Pausiert", status: "paused", questions: [] });
      const get = (url: string, lang: string) => fetch(url, { headers: { "accept-language": lang } });
      const paused = await get(link.public_url, "de");
      expect(await paused.text()).toContain("Über diesen Link werden im Moment keine Antworten angenommen.");
      const missing = await get(link.public_url.replace(/\/i\/[^/]+$/, "/i/no-such-link"), "pl,en;q=0.5");
      expect(missing.status).toBe(404);
      const body = await missing.text();
      expect(body).toContain('<html lang="pl" dir="ltr">');
      expect(body).toContain("Nie znaleziono linku");
      expect(await (await get(link.public_url, "ar")).text()).toContain('<html lang="ar" dir="rtl">');
    },
    TIMEOUT_MS,
  );
});
