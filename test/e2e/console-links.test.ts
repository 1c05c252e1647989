/**
 * @module test/e2e/console-links.test
 * The operator console's part 2 in Chromium against a real server (issue 11, DESIGN §10):
 * sign in → "New link" → a link with one question of each of the 11 types, a condition and
 * probing on the voice question → "Save link" → its "Public URL" answered by a respondent (fake
 * microphone playing espeak-ng speech, fixture models) → the response appears in the open inbox
 * without a reload → its page plays the recording and shows transcript, sentiment and topics →
 * the dashboard's numbers equal `GET links/{uuid}/stats/` → filters by topic and sentiment →
 * CSV export → erase → gone from inbox, dashboard and export. A second test edits a link that
 * has answers: no answer loses its question. Every page passes axe at 1280/390 px, light/dark
 * (screenshots under `test-results/console/`), and no request leaves the origin.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "csv-parse/sync";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { makeSpeechWav } from "../helpers/audio.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { SCREENSHOT_DIR, expectAccessible, expectKeyboardReachable, shootAll } from "./console-walk.ts";
import { FIXTURE_TRANSCRIPT, makeDataDir, removeDir } from "./voice-flow.ts";
import { apiGet, apiWrite, createOwner, setupUrlOf } from "../helpers/console-browser.ts";

const BINARY = process.env.EARSHOT_BIN ? path.resolve(process.env.EARSHOT_BIN) : null;
const TIMEOUT_MS = 280_000;
const STEP_MS = 30_000;
const RESPONDENT_EMAIL = "sam@example.com";

type Q = { prompt: string; type: string; fill?: (card: Locator) => Promise<void> };

const Q_TEXT = "What should we improve first?";
const Q_CHOICE = "Which features do you use?";
const Q_NUMBER = "How many people are on your team?";
const Q_NPS = "How likely are you to recommend us to a friend?";
const Q_IMAGE = "Which design do you prefer?";
const Q_YESNO = "Would you use it again?";
const Q_EMAIL = "Your email address";
const Q_DATE = "When did you start using it?";
const Q_FILE = "Attach a screenshot";
const Q_FALLBACK = "Anything else to add?";
const Q_VOICE = "Tell us about your experience in your own words";

/** Polls `read` until `pred` holds. */
async function eventually<T>(read: () => Promise<T>, pred: (v: T) => boolean, what: string, ms = STEP_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (pred(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await Bun.sleep(250);
  }
}

async function nav(page: Page, link: string, heading: string | RegExp): Promise<void> {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: link, exact: true }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

/** Server + browser + owner signed in through the setup URL. */
async function start(
  bin?: string[],
  env: Record<string, string> = {},
): Promise<{ server: RunningServer; browser: BrowserContext; page: Page; origin: string; requests: string[]; dataDir: string; wav: string }> {
  const dataDir = await makeDataDir();
  const wav = await makeSpeechWav("The checkout was slow, but the support team was friendly and helpful.", path.join(dataDir, "speech.wav"));
  const server = await startServer({ dataDir, bin, env });
  const setupUrl = await setupUrlOf(server);
  const origin = new URL(setupUrl).origin;
  const browser = await launchBrowser({ fakeAudioWav: wav, bypassCSP: true });
  const requests: string[] = [];
  browser.on("request", (r) => requests.push(r.url()));
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await createOwner(page, setupUrl);
  return { server, browser, page, origin, requests, dataDir, wav };
}

/** Only this origin (and data:/blob: URLs) was ever requested. */
function expectSameOrigin(requests: string[], origin: string): void {
  const foreign = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith("data:") && !u.startsWith("blob:"));
  expect(foreign).toEqual([]);
}

/** The builder's card of question `i` (0-based). */
function card(page: Page, i: number): Locator {
  return page.locator("ol.q-list > li").nth(i);
}

/** Opens question `i`'s card in the builder (cards are collapsed unless being edited). */
async function expand(page: Page, i: number): Promise<void> {
  const toggle = card(page, i).locator(".q-toggle");
  if ((await toggle.getAttribute("aria-expanded")) === "false") await toggle.click();
}

/** Adds a question in the builder: prompt, type, then `fill` on its card. */
async function addQuestion(page: Page, i: number, q: Q): Promise<void> {
  await page.getByRole("button", { name: "Add question" }).click();
  const c = card(page, i);
  await c.getByLabel("Prompt").fill(q.prompt);
  await c.getByLabel("Question type").selectOption(q.type);
  await q.fill?.(c);
}

/** Viewport screenshots (not full page) for docs/console/, light and dark, desktop or phone. */
async function docShot(page: Page, name: string, at: Locator | null, width = 1280): Promise<void> {
  await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    if (at) await at.evaluate((el) => el.scrollIntoView({ block: "start" }));
    else await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `docs-${name}-${width > 500 ? "desktop" : "phone"}-${scheme}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });
}

/** Reads the number a figure shows. */
async function figure(page: Page, name: string): Promise<string> {
  return ((await page.getByRole("figure", { name, exact: true }).locator(".figure-value").textContent()) ?? "").trim();
}

/** Answers every question of the link on its public page, as a respondent. */
async function answerAsRespondent(browser: BrowserContext, publicUrl: string, origin: string): Promise<void> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(e.message));
  try {
    await page.goto(publicUrl);
    const next = () => page.getByRole("button", { name: "Next" }).click();
    await page.getByLabel(Q_TEXT).fill("Faster exports, please. The checkout is slow.");
    await next();
    await page.getByRole("checkbox", { name: "Export" }).check();
    await page.getByRole("checkbox", { name: "Reports" }).check();
    await next();
    await page.getByLabel(Q_NUMBER).fill("12");
    await next();
    await page.getByRole("radiogroup", { name: Q_NPS }).getByRole("radio", { name: "9", exact: true }).check();
    await next();
    await page.getByRole("radiogroup", { name: Q_IMAGE }).getByRole("radio", { name: "Calm" }).check();
    await next();
    await page.getByRole("radiogroup", { name: Q_YESNO }).getByRole("radio", { name: "Yes" }).check();
    await next();
    await page.getByLabel(Q_EMAIL).fill(RESPONDENT_EMAIL);
    await next();
    await page.getByLabel(Q_DATE).fill("2026-11-02");
    await next();
    const png = await readFile(path.join(import.meta.dir, "..", "..", "docs", "console", "keys-phone-dark.png"));
    await page.getByLabel(Q_FILE).setInputFiles({ name: "screen.png", mimeType: "image/png", buffer: png });
    await page.getByText("Uploaded: screen.png", { exact: false }).waitFor({ timeout: STEP_MS });
    await next();
    await page.getByRole("group", { name: Q_FALLBACK }).waitFor();
    await page.getByRole("button", { name: "Type your answer instead" }).click();
    await page.getByRole("textbox", { name: Q_FALLBACK }).fill("The support team was friendly.");
    await next();
    // The voice question is shown because the yes/no answer was "Yes" (its condition).
    await page.getByRole("group", { name: Q_VOICE }).waitFor();
    await page.getByRole("button", { name: "Record" }).click();
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await page.waitForTimeout(2500);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByText("Recording saved").waitFor({ timeout: STEP_MS });
    await page.getByRole("button", { name: "Submit" }).click();
    // Probing (clarity threshold 0.95) asks a follow-up; it is answered by typing.
    const followUp = page.locator(".question-follow-up label.prompt");
    const thanks = page.getByText("Thanks, we heard you.");
    await followUp.or(thanks).first().waitFor({ timeout: STEP_MS });
    if (await followUp.isVisible()) {
      const question = (await followUp.textContent())!.trim();
      await page.getByRole("textbox", { name: question, exact: true }).fill("Mostly the payment step took a long time.");
      await page.getByRole("button", { name: "Submit" }).click();
    }
    await thanks.waitFor({ timeout: STEP_MS });
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
  void origin;
}

async function buildAllTypesLink(page: Page, origin: string, shots: boolean): Promise<void> {
  await page.getByRole("link", { name: "New link" }).click();
  await page.getByRole("heading", { level: 1, name: "New link" }).waitFor();
  await page.getByLabel("Name", { exact: true }).fill("Product feedback");
  await page.getByLabel("Slug").fill("product-feedback");
  await page.getByLabel("Description").fill("Two minutes about how the product works for you.");
  await page.getByLabel("Thank-you message").fill("Thanks, we heard you.");
  await page.getByLabel("Redirect URL").fill("not a url");
  const img = (name: string) => `${origin}/assets/${name}.png`;
  const questions: Q[] = [
    { prompt: Q_TEXT, type: "text", fill: async (c) => c.getByLabel("Required").check() },
    {
      prompt: Q_CHOICE,
      type: "multiple_choice",
      fill: async (c) => {
        await c.getByLabel("Option 1", { exact: true }).fill("Search");
        await c.getByLabel("Option 2", { exact: true }).fill("Export");
        await c.getByRole("button", { name: "Add option" }).click();
        await c.getByLabel("Option 3", { exact: true }).fill("Reports");
        // Keyboard reordering of options: "Export" moves to the top.
        await c.getByRole("button", { name: "Move option 2 up" }).click();
        await c.getByLabel("Allow several answers").check();
      },
    },
    {
      prompt: Q_NUMBER,
      type: "number",
      fill: async (c) => {
        await c.getByLabel("Minimum").fill("1");
        await c.getByLabel("Maximum").fill("500");
        await c.getByLabel("Step").fill("1");
      },
    },
    { prompt: Q_NPS, type: "rating", fill: async (c) => void (await c.getByLabel("Scale").selectOption("nps")) },
    {
      prompt: Q_IMAGE,
      type: "image_choice",
      fill: async (c) => {
        await c.getByLabel("Card 1 label").fill("Calm");
        await c.getByLabel("Card 1 media URL").fill(img("calm"));
        await c.getByRole("button", { name: "Add card" }).click();
        await c.getByLabel("Card 2 label").fill("Bold");
        await c.getByLabel("Card 2 media URL").fill(img("bold"));
      },
    },
    { prompt: Q_YESNO, type: "yes_no" },
    { prompt: Q_EMAIL, type: "email" },
    { prompt: Q_DATE, type: "date" },
    {
      prompt: Q_FILE,
      type: "file_upload",
      fill: async (c) => {
        await c.getByLabel("Allowed file types").fill("image/png, application/pdf");
        await c.getByLabel("Largest file (MB)").fill("5");
      },
    },
    { prompt: Q_VOICE, type: "voice" },
    { prompt: Q_FALLBACK, type: "voice_text_fallback" },
  ];
  for (const [i, q] of questions.entries()) await addQuestion(page, i, q);
  // The voice question (index 9) moves below the fallback one with the keyboard.
  await page.getByRole("button", { name: "Move down: question 10" }).focus();
  await page.keyboard.press("Enter");
  await expand(page, 10);
  expect(await card(page, 10).getByLabel("Prompt").inputValue()).toBe(Q_VOICE);
  const voice = card(page, 10);
  await voice.getByLabel("Longest recording (seconds)").fill("60");
  await voice.getByLabel("Show this question").selectOption({ label: `Only if question 6 (${Q_YESNO})` });
  await voice.getByLabel("Operator").selectOption("equals");
  await voice.getByLabel("Value").selectOption("true");
  await voice.getByLabel("Ask follow-up questions when an answer is unclear").check();
  await voice.getByLabel("Clarity threshold").fill("0.95");
  await voice.getByLabel("Most follow-ups").fill("1");
  // field_key is generated from the prompt and editable.
  expect(await voice.getByLabel("Field key").inputValue()).toBe("tell_us_about_your_experience_in_your_own_words");
  await voice.getByLabel("Field key").fill("experience");
  expect(await page.locator("select[id$='-qtype'] option").evaluateAll((os) => [...new Set(os.map((o) => (o as HTMLOptionElement).value))])).toEqual([
    "voice",
    "voice_text_fallback",
    "text",
    "multiple_choice",
    "number",
    "rating",
    "image_choice",
    "email",
    "date",
    "yes_no",
    "file_upload",
  ]);

  // A server validation error appears beside the field its pointer names.
  await page.getByRole("button", { name: "Save link" }).click();
  const redirect = page.getByLabel("Redirect URL");
  await eventually(
    () => redirect.getAttribute("aria-invalid"),
    (v) => v === "true",
    "redirect URL marked invalid",
  );
  expect(await page.locator("#link-redirect-error").textContent()).toContain("http");
  await redirect.fill("");
  await shootAll(page, "builder", shots);
  if (shots) {
    await docShot(page, "builder", voice, 1280);
    await docShot(page, "builder", voice, 390);
  }
  await page.getByRole("button", { name: "Save link" }).click();
  await page.getByRole("textbox", { name: "Public URL" }).waitFor({ timeout: STEP_MS });
  await page.getByRole("status").filter({ hasText: "Link saved." }).waitFor();
  await expectKeyboardReachable(page, "Builder");
}

async function runWalk(bin: string[] | undefined, shots: boolean): Promise<void> {
  const ctx = await start(bin);
  const { server, browser, page, origin, requests } = ctx;
  try {
    await page.getByRole("heading", { level: 1, name: "Links" }).waitFor();
    await buildAllTypesLink(page, origin, shots);
    const publicUrl = await page.getByRole("textbox", { name: "Public URL" }).inputValue();
    expect(publicUrl).toMatch(/\/w\/[a-z0-9-]+\/i\/product-feedback$/);
    const links = await apiGet(page, "links/");
    const link = links.results[0];
    expect(link.questions.map((q: any) => q.response_type)).toEqual([
      "text",
      "multiple_choice",
      "number",
      "rating",
      "image_choice",
      "yes_no",
      "email",
      "date",
      "file_upload",
      "voice_text_fallback",
      "voice",
    ]);
    const voiceQ = link.questions[10];
    expect(voiceQ).toMatchObject({
      field_key: "experience",
      configuration: { max_duration: 60, enable_ai_evaluation: true },
      condition: { show_if: "field_value", field: link.questions[5].field_key, operator: "equals", value: "true" },
      enable_dynamic_probing: true,
      evaluator_config: { clarity_threshold: 0.95, max_follow_ups: 1 },
    });
    expect(link.questions[1].configuration).toEqual({ options: ["Export", "Search", "Reports"], allow_multiple: true });
    expect(link.questions[3].configuration).toEqual({ scale_type: "nps", max_value: 10 });

    // The links list: state, Copy, QR code, Pause / Resume.
    await nav(page, "Links", "Links");
    const row = page.getByRole("row").filter({ hasText: "Product feedback" });
    await row.getByRole("button", { name: "Pause" }).click();
    await row.getByRole("button", { name: "Resume" }).waitFor();
    expect((await apiGet(page, `links/${link.uuid}/`)).status).toBe("paused");
    await row.getByRole("button", { name: "Resume" }).click();
    await row.getByRole("button", { name: "Pause" }).waitFor();
    await row.getByRole("button", { name: "QR code of Product feedback" }).click();
    const qr = page.getByRole("img", { name: `QR code for ${publicUrl}` });
    await qr.waitFor();
    expect(await qr.evaluate((el) => (el as HTMLImageElement).naturalWidth > 0)).toBe(true);
    await shootAll(page, "links-qr", shots);
    await page.getByRole("button", { name: "Close" }).click();
    await shootAll(page, "links", shots);
    await expectKeyboardReachable(page, "Links");

    // The inbox is open (and stays open) while a respondent answers.
    await row.getByRole("link", { name: "Responses of Product feedback" }).click();
    await page.getByRole("heading", { level: 1, name: "Responses to Product feedback" }).waitFor();
    await page.getByText("No responses yet.").waitFor();
    await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
    await answerAsRespondent(browser, publicUrl, origin);
    const inboxRow = page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL });
    await inboxRow.waitFor({ timeout: STEP_MS });
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    // The transcript arrives without a reload too.
    await inboxRow.getByText(FIXTURE_TRANSCRIPT).first().waitFor({ timeout: 60_000 });
    await shootAll(page, "inbox", shots);
    await expectKeyboardReachable(page, "Inbox");

    // The response's page: every answer under its question, audio that plays, transcript, insights.
    await inboxRow.getByRole("link").first().click();
    await page.getByRole("heading", { level: 1, name: "Response" }).waitFor();
    for (const prompt of [Q_TEXT, Q_CHOICE, Q_NUMBER, Q_NPS, Q_IMAGE, Q_YESNO, Q_EMAIL, Q_DATE, Q_FILE, Q_FALLBACK, Q_VOICE]) {
      await page.getByRole("heading", { level: 2, name: prompt }).waitFor();
    }
    const voiceItem = page.locator("li.answer").filter({ has: page.getByRole("heading", { name: Q_VOICE }) });
    const transcript = voiceItem.getByRole("group", { name: "Transcript" });
    await transcript.getByText(FIXTURE_TRANSCRIPT).waitFor({ timeout: 60_000 });
    const sentiment = voiceItem.getByRole("group", { name: "Sentiment" });
    await sentiment.waitFor({ timeout: 60_000 });
    const sentimentValue = ((await sentiment.textContent()) ?? "").trim();
    expect(["positive", "neutral", "negative"]).toContain(sentimentValue);
    const audio = voiceItem.locator("audio").first();
    const played = await audio.evaluate(async (el) => {
      const a = el as HTMLAudioElement;
      a.muted = true;
      await a.play();
      await new Promise((r) => setTimeout(r, 600));
      return { readyState: a.readyState, duration: a.duration, currentTime: a.currentTime };
    });
    expect(played.readyState).toBeGreaterThanOrEqual(2);
    expect(played.currentTime).toBeGreaterThan(0);
    expect(Number.isFinite(played.duration) ? played.duration : 1).toBeGreaterThan(0);
    const textItem = page.locator("li.answer").filter({ has: page.getByRole("heading", { name: Q_TEXT }) });
    const topics = await page.getByRole("list", { name: "Topics" }).locator("li").allTextContents();
    expect(topics.length).toBeGreaterThan(0);
    expect(
      await page
        .locator("li.answer")
        .filter({ has: page.getByRole("heading", { name: Q_NPS }) })
        .textContent(),
    ).toContain("9");
    expect(
      await page
        .locator("li.answer")
        .filter({ has: page.getByRole("heading", { name: Q_YESNO }) })
        .textContent(),
    ).toContain("Yes");
    expect(await page.getByRole("img", { name: "Calm" }).count()).toBe(1);
    await page.getByRole("link", { name: "Download screen.png" }).waitFor();
    void textItem;
    // Correcting the insights: the voice answer marked actionable (sentiment kept).
    await voiceItem.getByText("Correct the insights").click();
    await voiceItem.getByLabel("Actionable").check();
    await voiceItem.getByRole("button", { name: "Save correction" }).click();
    await voiceItem.getByText("Correction saved.").waitFor();
    await voiceItem.getByText("corrected by Ada Lovelace").waitFor({ timeout: STEP_MS });
    const corrected = (await apiGet(page, `responses/${(await apiGet(page, `links/${link.uuid}/responses/`)).results[0].uuid}/`)).answers.find(
      (a: any) => a.question_text === Q_VOICE,
    );
    expect(corrected.ai_insights).toMatchObject({ actionable: true, sentiment: sentimentValue });
    // (No tab-through here: the audio element's own controls take many Tab stops of their own.)
    await shootAll(page, "response", shots);
    if (shots) {
      await docShot(page, "response", voiceItem, 1280);
      await docShot(page, "response", voiceItem, 390);
    }

    // The dashboard's numbers are the API's.
    await page.goto(`${origin}/console/links/${link.uuid}/dashboard/`);
    await page.getByRole("heading", { level: 1, name: /Dashboard/ }).waitFor();
    const stats = await apiGet(page, `links/${link.uuid}/stats/`);
    expect(stats.responses.completed).toBe(1);
    await eventually(
      () => figure(page, "Responses"),
      (v) => v === String(stats.responses.completed),
      "Responses figure",
    );
    expect(await figure(page, "Completion rate")).toBe(`${Math.round(stats.responses.completion_rate * 100)} %`);
    const nps = stats.questions.find((q: any) => q.nps);
    expect(await figure(page, "NPS")).toBe(String(nps.nps.score));
    await page.locator(".chart canvas").first().waitFor();
    await shootAll(page, "dashboard", shots);
    if (shots) {
      await docShot(page, "dashboard", null, 1280);
      await docShot(page, "dashboard-distributions", page.locator(".dist-grid"), 1280);
    }
    // Every chart's text alternative: "Show as table" opens its numbers.
    for (const summary of await page.locator("summary", { hasText: "Show as table" }).all()) await summary.click();
    await expectAccessible(page, "dashboard with its tables open");
    for (const q of stats.questions.filter((x: any) => ["rating", "multiple_choice", "image_choice", "yes_no"].includes(x.type))) {
      const table = page.getByRole("table", { name: `Distribution: ${q.prompt}` });
      const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
      expect({ q: q.prompt, rows }).toEqual({ q: q.prompt, rows: q.distribution.map((d: any) => [d.label, String(d.count)]) });
    }

    await expectKeyboardReachable(page, "Dashboard");

    // The workspace-wide inbox lists it too, with its link.
    await nav(page, "Responses", "Responses");
    await page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL }).filter({ hasText: "Product feedback" }).waitFor();
    await shootAll(page, "responses-all", shots);
    // The inbox filtered by a topic (the dashboard's card shows themes since issue 24).
    const topic = stats.topics[0].topic as string;
    await page.goto(`${origin}/console/links/${link.uuid}/responses/`);
    await page.getByLabel("Topic").fill(topic);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByRole("heading", { level: 1, name: "Responses to Product feedback" }).waitFor();
    await page.waitForURL((u) => u.searchParams.get("topic") === topic);
    await page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL }).waitFor();

    // Filter by sentiment: the response's own matches, another does not.
    await page.goto(`${origin}/console/links/${link.uuid}/responses/`);
    await page.getByLabel("Sentiment").selectOption(sentimentValue === "negative" ? "positive" : "negative");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByText("No response matches the filter.").waitFor();
    await page.getByLabel("Sentiment").selectOption(sentimentValue);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL }).waitFor();
    await shootAll(page, "inbox-filtered", shots);
    // A question's value, and search (which reads transcripts).
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByLabel("Question").selectOption({ label: Q_YESNO });
    await page.getByLabel("Answer value").fill("no");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByText("No response matches the filter.").waitFor();
    await page.getByLabel("Answer value").fill("yes");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL }).waitFor();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByLabel("Search").fill("fixture");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL }).waitFor();
    expect(new URL(page.url()).searchParams.get("search")).toBe("fixture");
    await page.getByLabel("Search").fill("zebra");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByText("No response matches the filter.").waitFor();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByLabel("Sentiment").selectOption(sentimentValue);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL }).waitFor();

    // Export CSV of the current filter.
    const exported = async () => {
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
      const rows = parse(await readFile((await download.path())!, "utf8"), { columns: true, bom: true }) as Record<string, string>[];
      return rows;
    };
    const rows = await exported();
    expect(rows.length).toBe(1);
    expect(JSON.stringify(rows[0])).toContain(RESPONDENT_EMAIL);
    // The workspace-wide inbox exports too: every link's responses, with a link_uuid column.
    const filtered = page.url();
    await page.goto(`${origin}/console/responses/`);
    await page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL }).waitFor();
    const everything = await exported();
    expect(everything.map((r) => [r.link_uuid, r.respondent_email])).toContainEqual([link.uuid, RESPONDENT_EMAIL]);
    await page.goto(filtered);
    await page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL }).waitFor();

    // Erase: confirmation, then gone from the inbox, the dashboard and the export.
    await page.getByRole("row").filter({ hasText: RESPONDENT_EMAIL }).getByRole("link").first().click();
    await page.getByRole("heading", { level: 1, name: "Response" }).waitFor();
    await page.getByRole("button", { name: "Erase response" }).click();
    const dialog = page.getByRole("dialog", { name: "Erase this response?" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("cannot be undone");
    await shootAll(page, "erase-confirm", shots);
    await dialog.getByRole("button", { name: "Erase response" }).click();
    await page.getByRole("heading", { level: 1, name: "Responses to Product feedback" }).waitFor();
    await page
      .getByText(/No response|No responses yet/)
      .first()
      .waitFor();
    await page.goto(`${origin}/console/links/${link.uuid}/responses/`);
    await page.getByText("No responses yet.").waitFor();
    expect((await exported()).length).toBe(0);
    await page.goto(`${origin}/console/links/${link.uuid}/dashboard/`);
    await eventually(
      () => figure(page, "Responses"),
      (v) => v === "0",
      "Responses after erasure",
    );
    expect((await apiGet(page, `links/${link.uuid}/stats/`)).responses.completed).toBe(0);

    expectSameOrigin(requests, origin);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.stack : err}\nServer output (tail):\n${server.output().slice(-3000)}`);
  } finally {
    await browser.close();
    await server.stop();
    await removeDir(ctx.dataDir);
  }
}

describe("console links, responses and dashboard", () => {
  test(
    "from source: build a link of all 11 types, answer it, live inbox, response with audio and insights, dashboard = stats, filters, export, erase",
    async () => {
      await runWalk(undefined, true);
    },
    TIMEOUT_MS,
  );

  test.skipIf(!BINARY)(
    `single executable${BINARY ? "" : " (skipped: set EARSHOT_BIN)"}: the same walk`,
    async () => {
      await runWalk([BINARY!], false);
    },
    TIMEOUT_MS,
  );

  test(
    "without the speech model a voice answer waits for it, says why, and offers Reprocess; the open dashboard counts the response without a reload",
    async () => {
      const modelsDir = await makeDataDir();
      const ctx = await start(undefined, { EARSHOT_MODELS_DIR: modelsDir });
      const { page, origin, server, browser } = ctx;
      try {
        const created = await apiWrite(page, "POST", "links/", { name: "Voice only", questions: [{ prompt: Q_VOICE, type: "voice", required: true }] });
        expect(created.status).toBe(201);
        // The dashboard stays open while the respondent answers: its figures follow without a reload.
        await page.goto(`${origin}/console/links/${created.body.uuid}/dashboard/`);
        await eventually(
          () => figure(page, "Responses"),
          (v) => v === "0",
          "Responses before",
        );
        await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
        const respondent = await browser.newPage();
        await respondent.goto(created.body.public_url);
        await respondent.getByRole("button", { name: "Record" }).click();
        await respondent.getByRole("button", { name: "Stop" }).waitFor();
        await respondent.waitForTimeout(1500);
        await respondent.getByRole("button", { name: "Stop" }).click();
        await respondent.getByText("Recording saved").waitFor({ timeout: STEP_MS });
        await respondent.getByRole("button", { name: "Submit" }).click();
        await respondent.getByText("Thanks for your response!").waitFor({ timeout: STEP_MS });
        await respondent.close();
        await eventually(
          () => figure(page, "Responses"),
          (v) => v === "1",
          "Responses after the answer",
        );
        expect(await figure(page, "Completion rate")).toBe("100 %");
        expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);

        const list = await apiGet(page, `links/${created.body.uuid}/responses/`);
        await page.goto(`${origin}/console/responses/${list.results[0].uuid}/`);
        const transcript = page.getByRole("group", { name: "Transcript" });
        await transcript.getByText("Waiting for the speech model").waitFor({ timeout: 60_000 });
        const answer = (await apiGet(page, `responses/${list.results[0].uuid}/`)).answers[0];
        expect(answer.transcription_status).toBe("waiting_for_model");
        expect(await transcript.textContent()).toContain(answer.transcription_error);
        await page.getByRole("button", { name: "Reprocess" }).click();
        await page.getByRole("status").filter({ hasText: "Queued again" }).waitFor();
        await shootAll(page, "response-waiting", true);
      } finally {
        await browser.close();
        await server.stop();
        await removeDir(ctx.dataDir);
        await removeDir(modelsDir);
      }
    },
    TIMEOUT_MS,
  );

  test(
    "editing a link that has answers keeps every question an answer refers to",
    async () => {
      const ctx = await start();
      const { page, origin, server, browser } = ctx;
      try {
        const created = await apiWrite(page, "POST", "links/", {
          name: "Checkout survey",
          questions: [
            { prompt: "How was checkout?", type: "text", required: true },
            { prompt: "Rate the checkout", type: "rating", configuration: { scale_type: "stars", max_value: 5 } },
            { prompt: "Would you pay again?", type: "yes_no" },
          ],
        });
        expect(created.status).toBe(201);
        const link = created.body;
        // A respondent answers through the intake API.
        const base = `${origin}/api/v1/intake/${new URL(link.public_url).pathname.split("/")[2]}/${link.slug}/`;
        const session = await (await fetch(`${base}sessions/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json();
        const put = (q: any, value: unknown) =>
          fetch(`${base}sessions/${session.session_id}/answers/${q.uuid}/`, {
            method: "PUT",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ value }),
          });
        expect((await put(link.questions[0], "Quick and easy")).status).toBeLessThan(300);
        expect((await put(link.questions[1], 4)).status).toBeLessThan(300);
        expect((await put(link.questions[2], true)).status).toBeLessThan(300);
        expect(
          (await fetch(`${base}sessions/${session.session_id}/submit/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }))
            .status,
        ).toBeLessThan(300);

        await page.goto(`${origin}/console/links/${link.uuid}/`);
        await page.getByRole("heading", { level: 1, name: "Checkout survey" }).waitFor();
        await card(page, 0).getByText("1 response answered").waitFor();
        // Edit: a prompt, a new question, reordering, then try to remove an answered question.
        await expand(page, 0);
        await card(page, 0).getByLabel("Prompt").fill("How was the checkout today?");
        await addQuestion(page, 3, { prompt: "Anything else?", type: "text" });
        await page.getByRole("button", { name: "Move up: question 3" }).click();
        await page.getByRole("button", { name: "Remove: question 3" }).click();
        const dialog = page.getByRole("dialog", { name: "Remove this question?" });
        await dialog.waitFor();
        expect(await dialog.textContent()).toContain("1 response has answered");
        await shootAll(page, "builder-remove-warning", false);
        await dialog.getByRole("button", { name: "Cancel" }).click();
        expect(await page.locator("ol.q-list > li").count()).toBe(4);
        // Native drag and drop: the last question's handle dropped on the first card.
        // (Dispatched as the browser would: dragstart on the handle, dragover and drop on the card.)
        await page.evaluate(() => {
          const cards = document.querySelectorAll("ol.q-list > li");
          const dt = new DataTransfer();
          cards[3]!.querySelector(".drag-handle")!.dispatchEvent(new DragEvent("dragstart", { bubbles: true, cancelable: true, dataTransfer: dt }));
          cards[0]!.dispatchEvent(new DragEvent("dragover", { bubbles: true, cancelable: true, dataTransfer: dt }));
          cards[0]!.dispatchEvent(new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: dt }));
          cards[3]!.querySelector(".drag-handle")!.dispatchEvent(new DragEvent("dragend", { bubbles: true, dataTransfer: dt }));
        });
        expect(await card(page, 0).getByLabel("Prompt").inputValue()).toBe("Anything else?");
        await page.getByRole("button", { name: "Move down: question 1" }).click();
        await page.getByRole("button", { name: "Move down: question 2" }).click();
        await page.getByRole("button", { name: "Move down: question 3" }).click();
        expect(await card(page, 3).getByLabel("Prompt").inputValue()).toBe("Anything else?");
        await page.getByRole("button", { name: "Save link" }).click();
        await page.getByRole("status").filter({ hasText: "Link saved." }).waitFor();

        const after = await apiGet(page, `links/${link.uuid}/`);
        expect(after.questions.map((q: any) => q.prompt)).toEqual([
          "How was the checkout today?",
          "Would you pay again?",
          "Rate the checkout",
          "Anything else?",
        ]);
        const uuids = new Set(after.questions.map((q: any) => q.uuid));
        for (const q of link.questions) expect(uuids.has(q.uuid)).toBe(true);
        expect(after.questions.find((q: any) => q.uuid === link.questions[1].uuid).configuration).toEqual({ scale_type: "stars", max_value: 5 });
        const responses = await apiGet(page, `links/${link.uuid}/responses/`);
        expect(responses.count).toBe(1);
        for (const a of responses.results[0].answers) expect(uuids.has(a.question_uuid)).toBe(true);
        await expectAccessible(page, "builder after editing");

        // "Preview" opens the real page in a mode that records nothing.
        const intakeWrites: string[] = [];
        browser.on("request", (r) => r.url().includes("/api/v1/intake/") && r.method() !== "GET" && intakeWrites.push(`${r.method()} ${r.url()}`));
        const [preview] = await Promise.all([browser.waitForEvent("page"), page.getByRole("link", { name: "Preview" }).click()]);
        await preview.waitForLoadState();
        expect(new URL(preview.url()).searchParams.get("preview")).toBe("1");
        await preview.getByText("Preview: nothing you enter here is recorded.").waitFor();
        await preview.getByLabel("How was the checkout today?").fill("Just trying the preview");
        await preview.getByRole("button", { name: "Next" }).click();
        await preview.getByRole("radiogroup", { name: "Would you pay again?" }).getByRole("radio", { name: "No" }).check();
        await preview.getByRole("button", { name: "Next" }).click();
        await preview.getByRole("radiogroup", { name: "Rate the checkout" }).getByRole("radio", { name: "2 stars" }).check();
        await preview.getByRole("button", { name: "Next" }).click();
        await preview.getByLabel("Anything else?").fill("Nothing");
        await preview.getByRole("button", { name: "Submit" }).click();
        await preview.getByText("Thanks for your response!").waitFor();
        expect(intakeWrites).toEqual([]);
        expect((await apiGet(page, `links/${link.uuid}/responses/?status=all`)).count).toBe(1);
      } finally {
        await browser.close();
        await server.stop();
        await removeDir(ctx.dataDir);
      }
    },
    TIMEOUT_MS,
  );
});
