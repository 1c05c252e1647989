/**
 * @module test/e2e/intake-a11y.test
 * Accessibility of the intake page, verified (issue 17, docs/accessibility.md), against a real
 * server (from source) in Chromium with a fake microphone:
 * - axe-core (WCAG 2.0/2.1/2.2 A and AA rules) on every question type and every state — error,
 *   recording, recorded, follow-up, thank-you — in light and dark, and in Arabic (right to left):
 *   no serious or critical violation (colour contrast included, so dark mode's contrast holds);
 * - no horizontal scroll at 320 px width nor at 200 % zoom (a 1280 px window at 200 % is 640 CSS px);
 * - `prefers-reduced-motion: reduce` stops the recording dot's pulse;
 * - a whole link completed with the keyboard only; focus moves into each new question; errors
 *   are announced (`role="alert"`, `aria-invalid` + `aria-errormessage` on the control).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { REPO_DIR, startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const STEP_MS = 20_000;

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let browser: BrowserContext;
let axeSource: string;

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  axeSource = await readFile(path.join(REPO_DIR, "node_modules", "axe-core", "axe.min.js"), "utf8");
  browser = await launchBrowser({ bypassCSP: true });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

/** Serious and critical axe violations of the page as it is, in light then dark. */
async function axeViolations(page: Page, label: string): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axeSource });
  const found: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.waitForTimeout(250); // colour transitions
    const violations = await page.evaluate(async () => {
      type Result = { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
      const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<Result> } }).axe;
      const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] } });
      return result.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map(
          (v) =>
            `${v.impact} ${v.id}: ${v.nodes
              .map((n) => n.target.join(" "))
              .slice(0, 3)
              .join(" | ")}`,
        );
    });
    found.push(...violations.map((v) => `${label} (${colorScheme}): ${v}`));
  }
  await page.emulateMedia({ colorScheme: "light" });
  return found;
}

/** Widths (CSS px) at which the page must not scroll sideways: 320 px, and 1280 px at 200 % zoom. */
async function horizontalScroll(page: Page, label: string): Promise<string[]> {
  const found: string[] = [];
  const size = page.viewportSize()!;
  for (const width of [320, 640]) {
    await page.setViewportSize({ width, height: 700 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    if (overflow > 0) found.push(`${label} at ${width} px: ${overflow} px of horizontal scroll`);
  }
  await page.setViewportSize(size);
  return found;
}

const P = {
  text: "What brought you here today?",
  probe: "How was it?",
  choice: "Which features do you use?",
  single: "Which plan are you on?",
  number: "How many people are on your team?",
  stars: "How would you rate us?",
  faces: "How do you feel about it?",
  nps: "How likely are you to recommend us?",
  cards: "Pick a theme",
  email: "Your email address",
  date: "When did you start?",
  yesNo: "Would you use it again?",
  file: "Attach a screenshot",
  voice: "Tell us in your own words",
  fallback: "Anything else? Speak or type.",
} as const;

function everyTypeLink() {
  const media = (name: string) => `http://127.0.0.1:${server.port}/test-media/${name}.png`;
  return {
    name: "Every question type",
    settings: { tts_enabled: true, description: "A short survey about our product." },
    questions: [
      { prompt: P.text, type: "text", required: true },
      { prompt: P.probe, type: "text", required: true, enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 0.99, max_follow_ups: 1 } },
      { prompt: P.choice, type: "multiple_choice", configuration: { options: ["Links", "Webhooks", "Exports"], allow_multiple: true } },
      { prompt: P.single, type: "multiple_choice", configuration: { options: ["Free", "Team", "Enterprise"] } },
      { prompt: P.number, type: "number", configuration: { min: 1, max: 500 } },
      { prompt: P.stars, type: "rating", configuration: { scale_type: "stars", max_value: 5 } },
      { prompt: P.faces, type: "rating", configuration: { scale_type: "emojis", max_value: 5 } },
      { prompt: P.nps, type: "rating", configuration: { scale_type: "nps" } },
      {
        prompt: P.cards,
        type: "image_choice",
        configuration: {
          cards: [
            { id: "sea", label: "Sea", media_url: media("sea") },
            { id: "forest", label: "Forest", media_url: media("forest") },
          ],
        },
      },
      { prompt: P.email, type: "email" },
      { prompt: P.date, type: "date" },
      { prompt: P.yesNo, type: "yes_no" },
      { prompt: P.file, type: "file_upload", configuration: { allowed_types: ["image/png"], max_size_mb: 1 } },
      { prompt: P.voice, type: "voice", required: true, fallback_to_text: false, configuration: { max_duration: 30 } },
      { prompt: P.fallback, type: "voice_text_fallback" },
    ],
  };
}

describe("intake page accessibility", () => {
  test(
    "axe: every question type and state, light and dark, English and Arabic; reflow at 320 px and 200 %; reduced motion",
    async () => {
      const problems: string[] = [];
      for (const lang of ["en", "ar"]) {
        // Arabic comes from the respondent (Accept-Language), not from the link: the link's own
        // language would keep the English-only insights engine from asking the follow-up whose
        // state is checked here (docs/intake.md, "Spoken answers and follow-ups").
        const link = await api(server, apiKey, "POST", "links/", {
          ...everyTypeLink(),
          settings: { ...everyTypeLink().settings, language: lang === "en" ? "en" : null },
        });
        const page = await browser.newPage();
        await page.setExtraHTTPHeaders({ "accept-language": lang });
        await page.setViewportSize({ width: 1024, height: 800 });
        const next = () => page.locator("button[type=submit]").click();
        const check = async (label: string) => {
          problems.push(...(await axeViolations(page, `${lang} ${label}`)), ...(await horizontalScroll(page, `${lang} ${label}`)));
        };
        try {
          await page.goto(link.public_url);
          await page.locator(".question").first().waitFor({ timeout: STEP_MS });
          expect([await page.locator("html").getAttribute("lang"), await page.locator("html").getAttribute("dir")]).toEqual([
            lang,
            lang === "ar" ? "rtl" : "ltr",
          ]);
          await check("text");
          // Error state: required and empty.
          await next();
          await page.getByRole("alert").filter({ hasText: /./ }).waitFor({ timeout: STEP_MS });
          await check("error");
          await page.locator("textarea").fill("Curiosity.");
          await next();
          // Follow-up state (dynamic probing asks because the clarity threshold is 0.99).
          await page.waitForFunction(() => document.querySelector(".progress-text")?.textContent?.includes("2"));
          await page.locator("textarea").fill("ok");
          await next();
          await page.locator(".question-follow-up").waitFor({ timeout: STEP_MS });
          await check("follow-up");
          await page.locator(".question-follow-up textarea").fill("The export was slow on large files.");
          await next();
          for (const label of [
            "multiple choice (several)",
            "multiple choice (one)",
            "number",
            "stars",
            "faces",
            "nps",
            "image cards",
            "email",
            "date",
            "yes/no",
            "file upload",
          ]) {
            await page.waitForFunction(
              (n) => document.querySelector(".progress-text")?.textContent?.includes(String(n)),
              3 +
                [
                  "multiple choice (several)",
                  "multiple choice (one)",
                  "number",
                  "stars",
                  "faces",
                  "nps",
                  "image cards",
                  "email",
                  "date",
                  "yes/no",
                  "file upload",
                ].indexOf(label),
            );
            await check(label);
            await next();
          }
          // Voice: idle, recording (and reduced motion), recorded.
          const record = page.locator(".record-button");
          await record.waitFor({ timeout: STEP_MS });
          await check("voice");
          await record.click();
          await page.locator('[data-phase="recording"]').waitFor({ timeout: STEP_MS });
          await check("recording");
          const pulse = () => page.locator(".record-dot").evaluate((el) => getComputedStyle(el).animationName);
          expect(await pulse()).toBe("pulse");
          await page.emulateMedia({ reducedMotion: "reduce" });
          expect(await pulse()).toBe("none");
          await page.emulateMedia({ reducedMotion: "no-preference" });
          await page.waitForTimeout(1200);
          await record.click();
          await page.locator('[data-phase="saved"]').waitFor({ timeout: STEP_MS });
          await check("recorded");
          await next();
          await page.locator(".record-button").waitFor({ timeout: STEP_MS });
          await check("voice with text fallback");
          await next();
          await page.locator(".thanks").waitFor({ timeout: STEP_MS });
          await check("thank-you");
        } finally {
          await page.close();
        }
      }
      expect(problems).toEqual([]);
    },
    TIMEOUT_MS * 2,
  );

  test(
    "a whole link with the keyboard only: focus moves into each new question, errors are announced",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Keyboard",
        questions: [
          { prompt: P.text, type: "text", required: true },
          { prompt: P.single, type: "multiple_choice", required: true, configuration: { options: ["Free", "Team", "Enterprise"] } },
          { prompt: P.stars, type: "rating", required: true, configuration: { scale_type: "stars", max_value: 5 } },
          { prompt: P.choice, type: "multiple_choice", configuration: { options: ["Links", "Webhooks", "Exports"], allow_multiple: true } },
          { prompt: P.email, type: "email" },
          { prompt: P.yesNo, type: "yes_no", required: true },
        ],
      });
      const page = await browser.newPage();
      const focused = () =>
        page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          const label = el?.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
          return { tag: el?.tagName ?? "", text: (label ?? el?.textContent ?? "").trim(), inQuestion: Boolean(el?.closest(".question-slot")) };
        });
      /** Presses Tab until the focused element's text (or its label's) is `text`. */
      const tabTo = async (text: string) => {
        for (let i = 0; i < 30; i++) {
          await page.keyboard.press("Tab");
          if ((await focused()).text === text) return;
        }
        throw new Error(`Tab never reached "${text}"`);
      };
      try {
        await page.goto(link.public_url);
        await page.locator("textarea").waitFor({ timeout: STEP_MS });
        await page.keyboard.press("Tab"); // the language switcher
        expect((await focused()).tag).toBe("SELECT");
        await page.keyboard.press("Tab");
        expect(await focused()).toMatchObject({ tag: "TEXTAREA", inQuestion: true });
        // Next on an empty required question: the error is announced and tied to the control.
        await tabTo("Next");
        await page.keyboard.press("Enter");
        const alert = page.getByRole("alert");
        await expect(alert.textContent()).resolves.toBe("Please answer this question to continue.");
        const errorId = await alert.getAttribute("id");
        const textarea = page.getByLabel(P.text);
        expect([await textarea.getAttribute("aria-invalid"), await textarea.getAttribute("aria-errormessage")]).toEqual(["true", errorId]);
        await textarea.focus(); // what a keyboard user does: Shift+Tab back
        await page.keyboard.type("Keyboard only.");
        await tabTo("Next");
        await page.keyboard.press("Enter");
        // Focus moved to the new question's first option; arrows choose.
        await page.getByRole("radiogroup", { name: P.single }).waitFor({ timeout: STEP_MS });
        expect(await focused()).toMatchObject({ tag: "INPUT", text: "Free", inQuestion: true });
        await page.keyboard.press("Space");
        await page.keyboard.press("ArrowDown");
        expect(await page.getByRole("radio", { name: "Team" }).isChecked()).toBe(true);
        await tabTo("Next");
        await page.keyboard.press("Enter");
        await page.getByRole("radiogroup", { name: P.stars }).waitFor({ timeout: STEP_MS });
        expect(await focused()).toMatchObject({ tag: "INPUT", inQuestion: true });
        await page.keyboard.press("Space");
        for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
        expect(await page.getByRole("radio", { name: "4 stars" }).isChecked()).toBe(true);
        await tabTo("Next");
        await page.keyboard.press("Enter");
        await page.getByRole("group", { name: P.choice }).waitFor({ timeout: STEP_MS });
        expect(await focused()).toMatchObject({ tag: "INPUT", text: "Links", inQuestion: true });
        await page.keyboard.press("Space");
        await page.keyboard.press("Tab");
        await page.keyboard.press("Tab");
        await page.keyboard.press("Space");
        await tabTo("Next");
        await page.keyboard.press("Enter");
        await page.getByLabel(P.email).waitFor({ timeout: STEP_MS });
        expect(await focused()).toMatchObject({ tag: "INPUT", inQuestion: true });
        await page.keyboard.type("kim@example.com");
        await page.keyboard.press("Enter"); // implicit submission = Next
        await page.getByRole("radiogroup", { name: P.yesNo }).waitFor({ timeout: STEP_MS });
        expect(await focused()).toMatchObject({ tag: "INPUT", text: "Yes", inQuestion: true });
        await page.keyboard.press("Space");
        await tabTo("Submit");
        await page.keyboard.press("Enter");
        await page.getByText("Thanks for your response!").waitFor({ timeout: STEP_MS });
        // The thank-you heading takes focus, so it is read out.
        expect(await page.evaluate(() => document.activeElement?.classList.contains("thanks-message"))).toBe(true);
      } finally {
        await page.close();
      }
      const [response] = (await api(server, apiKey, "GET", `responses/?link=${link.uuid}`)).results;
      const values = Object.fromEntries(response.answers.map((a: { question_text: string; value: unknown }) => [a.question_text, a.value]));
      expect(values).toEqual({
        [P.text]: "Keyboard only.",
        [P.single]: "Team",
        [P.stars]: 4,
        [P.choice]: ["Links", "Exports"],
        [P.email]: "kim@example.com",
        [P.yesNo]: true,
      });
    },
    TIMEOUT_MS,
  );
});
