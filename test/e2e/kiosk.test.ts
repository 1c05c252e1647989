/**
 * @module test/e2e/kiosk.test
 * Kiosk mode (issue 29) in Chromium against a real server (from source): one page serves three
 * respondents in a row — a typed and a voice answer each, through Chromium's fake microphone —
 * without leaking one's answers to the next (the DOM, local and session storage, and the three
 * stored responses through the API), with one getUserMedia grant and no reload; the idle reset
 * with its "Still there?" countdown (on Playwright's fake clock), which also brings back the page's
 * language a respondent changed; the exit PIN (refused, then accepted, leaving full screen and
 * kiosk mode); axe-core on the kiosk page and its dialogs.
 *
 * With `EARSHOT_SHOTS_DIR` set, screenshots at 390×844 (phone), 820×1180 (tablet) and 1280×900
 * are saved there for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { REPO_DIR, startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 180_000;
const TEXT_PROMPT = "What brought you to the front desk today?";
const VOICE_PROMPT = "Tell us how your visit went";
const THANKS = "Thanks — please hand the tablet to the next person.";
const EXIT_PIN = "2580";
const SIZES = [
  ["phone", 390, 844],
  ["tablet", 820, 1180],
  ["desktop", 1280, 900],
] as const;

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let browser: BrowserContext;
let link: { uuid: string; public_url: string };

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  browser = await launchBrowser();
  link = await api(server, apiKey, "POST", "links/", {
    name: "Visitor feedback",
    settings: { thankYouMessage: THANKS, kiosk: { enabled: true, idle_timeout_s: 15, exit_pin: EXIT_PIN } },
    questions: [
      { prompt: TEXT_PROMPT, type: "text", required: true },
      { prompt: VOICE_PROMPT, type: "voice", required: true, configuration: { max_duration: 30 } },
    ],
  });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

/** Every response of the link, any status, oldest first. */
async function responses(): Promise<any[]> {
  return (await api(server, apiKey, "GET", `responses/?status=all&link=${link.uuid}&page_size=100`)).results.reverse();
}

/** Saves a screenshot at each size when `EARSHOT_SHOTS_DIR` is set; the viewport is restored after. */
async function shoot(page: Page, name: string): Promise<void> {
  const dir = process.env.EARSHOT_SHOTS_DIR;
  if (!dir) return;
  const before = page.viewportSize();
  for (const [size, width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(dir, `kiosk-${name}-${size}.png`) });
  }
  if (before) await page.setViewportSize(before);
}

/** The page's `earshot:` entries in local and session storage, and its cookies' names. */
async function browserTraces(page: Page): Promise<string[]> {
  return page.evaluate(() => [
    ...Object.keys(localStorage).filter((k) => k.startsWith("earshot:")),
    ...Object.keys(sessionStorage).filter((k) => k.startsWith("earshot:")),
    ...document.cookie
      .split(";")
      .map((c) => c.trim())
      .filter(Boolean),
  ]);
}

/**
 * A kiosk page that counts getUserMedia calls and page loads.
 * @param fakeClock install Playwright's clock before the page loads (the idle test)
 */
async function openKiosk(fakeClock = false): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  if (fakeClock) await page.clock.install();
  await page.setViewportSize({ width: 820, height: 1180 });
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  await page.addInitScript(() => {
    const w = window as unknown as { __gum: number; __loads: number };
    w.__gum = 0;
    const media = navigator.mediaDevices;
    const original = media.getUserMedia.bind(media);
    media.getUserMedia = (constraints) => {
      w.__gum += 1;
      return original(constraints);
    };
    sessionStorage.setItem("test:loads", String(Number(sessionStorage.getItem("test:loads") ?? 0) + 1));
  });
  await page.goto(link.public_url);
  await page.getByLabel(TEXT_PROMPT).waitFor();
  return { page, problems };
}

describe("kiosk mode", () => {
  test(
    "serves three respondents in a row without leaking one's answers to the next, on one microphone grant and no reload",
    async () => {
      const { page, problems } = await openKiosk();
      // A trace a previous visitor could have left: the kiosk clears it on start.
      await page.evaluate((uuid) => localStorage.setItem(`earshot:session:${uuid}`, "left-over"), link.uuid);
      await page.reload();
      await page.getByLabel(TEXT_PROMPT).waitFor();
      expect(await browserTraces(page)).toEqual([]);
      await shoot(page, "question");

      const answers = ["Respondent one: parking was hard to find", "Respondent two: the wait was short", "Respondent three: friendly staff"];
      for (const [i, answer] of answers.entries()) {
        // A fresh page for each respondent: empty field, first question, none of the earlier answers anywhere.
        const field = page.getByLabel(TEXT_PROMPT);
        await field.waitFor();
        expect(await field.inputValue()).toBe("");
        expect(await page.getByText("Question 1 of 2").count()).toBe(1);
        const text = await page.evaluate(() => document.body.innerText + document.body.innerHTML);
        for (const earlier of answers.slice(0, i)) expect(text).not.toContain(earlier);
        expect(await page.locator("audio").count()).toBe(0);

        await field.fill(answer);
        await page.getByRole("button", { name: "Next" }).click();
        await page.getByRole("group", { name: VOICE_PROMPT }).waitFor();
        await page.getByRole("button", { name: "Record" }).click();
        await page.getByRole("button", { name: "Stop" }).waitFor();
        await page.waitForTimeout(1200);
        await page.getByRole("button", { name: "Stop" }).click();
        await page.getByText("Recording saved").waitFor();
        // Nothing is kept in the browser while answering either (no resume token).
        expect(await browserTraces(page)).toEqual([]);
        await page.getByRole("button", { name: "Submit" }).click();
        await page.getByText(THANKS).waitFor();
        await page.getByText(/starts over for the next person in \d+ s/).waitFor();
        if (i === 0) await shoot(page, "thanks");
        // The first starts over by itself after the thank-you; the others by "Start over now".
        if (i > 0) await page.getByRole("button", { name: "Start over now" }).click();
        await page.getByLabel(TEXT_PROMPT).waitFor({ timeout: 20_000 });
        expect(await browserTraces(page)).toEqual([]);
      }

      // One microphone grant for three recordings, and the page was never reloaded after the start.
      expect(await page.evaluate(() => (window as unknown as { __gum: number }).__gum)).toBe(1);
      expect(await page.evaluate(() => sessionStorage.getItem("test:loads"))).toBe("2");
      expect(problems).toEqual([]);

      // Three separate submitted responses, each with only its own respondent's answers.
      const stored = await responses();
      expect(stored.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
      expect(new Set(stored.map((r) => r.uuid)).size).toBe(3);
      for (const [i, r] of stored.entries()) {
        const typed = r.answers.find((a: any) => a.question_text === TEXT_PROMPT);
        expect(typed.value).toBe(answers[i]);
        const voice = r.answers.find((a: any) => a.question_text === VOICE_PROMPT);
        expect(voice.audio_url).toBeTruthy();
        expect(r.answers).toHaveLength(2);
      }
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'after the idle timeout it asks "Still there?", keeps the answer when the respondent stays, else starts over empty',
    async () => {
      const { page } = await openKiosk(true);
      const before = (await responses()).length;
      const field = page.getByLabel(TEXT_PROMPT);
      await field.fill("Half an answer someone walked away from");
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("group", { name: VOICE_PROMPT }).waitFor();

      await page.clock.runFor(16_000);
      const dialog = page.getByRole("dialog", { name: "Still there?" });
      await dialog.waitFor();
      await dialog.getByText(/starts over in \d+ s/).waitFor();
      await shoot(page, "still-there");
      await dialog.getByRole("button", { name: "I’m still here" }).click();
      await dialog.waitFor({ state: "detached" });
      await page.getByRole("group", { name: VOICE_PROMPT }).waitFor();
      // The respondent switches to German (a cookie remembers it): the next one must get the page's own language back.
      await page.getByLabel("Language").selectOption("de");
      await page.getByRole("button", { name: "Zurück" }).waitFor();
      expect(await browserTraces(page)).toEqual(["earshot_lang=de"]);

      // Untouched again: the countdown comes back (in German) and runs out.
      await page.clock.runFor(16_000);
      const german = page.getByRole("dialog", { name: "Noch da?" });
      await german.waitFor();
      await page.clock.runFor(6_000);
      await german.waitFor({ state: "detached" });
      await field.waitFor();
      expect(await field.inputValue()).toBe("");
      expect(await page.getByLabel("Language").inputValue()).toBe("en");
      await page.getByRole("button", { name: "Next" }).waitFor();
      expect(await page.evaluate(() => document.body.innerHTML)).not.toContain("walked away");
      expect(await browserTraces(page)).toEqual([]);

      // The abandoned answer stays in its own started response; the next respondent gets a new one.
      await field.fill("A new visitor");
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("group", { name: VOICE_PROMPT }).waitFor();
      const stored = (await responses()).slice(before);
      expect(stored).toHaveLength(2);
      expect(stored.map((r) => r.answers[0]?.value)).toEqual(["Half an answer someone walked away from", "A new visitor"]);
      expect(stored.every((r) => r.status === "started")).toBe(true);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "full screen, and leaving kiosk mode only with the right PIN",
    async () => {
      const { page } = await openKiosk();
      await page.getByRole("button", { name: "Full screen" }).click();
      await page.waitForFunction(() => document.fullscreenElement !== null);
      await page.getByRole("button", { name: "Full screen" }).waitFor({ state: "hidden" });

      await page.getByRole("button", { name: "Leave kiosk mode" }).click();
      const dialog = page.getByRole("dialog", { name: "Leave kiosk mode" });
      await dialog.getByLabel("PIN").fill("1111");
      await dialog.getByRole("button", { name: "Leave" }).click();
      await dialog.getByText("That PIN is not right.").waitFor();
      await shoot(page, "pin");
      expect(await page.evaluate(() => document.documentElement.classList.contains("kiosk"))).toBe(true);

      await dialog.getByLabel("PIN").fill(EXIT_PIN);
      await dialog.getByRole("button", { name: "Leave" }).click();
      await dialog.waitFor({ state: "detached" });
      await page.waitForFunction(() => document.fullscreenElement === null);
      expect(await page.evaluate(() => document.documentElement.classList.contains("kiosk"))).toBe(false);
      expect(await page.getByRole("button", { name: "Leave kiosk mode" }).count()).toBe(0);
      // The normal page: the form is still there to answer.
      await page.getByLabel(TEXT_PROMPT).waitFor();
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "axe: the kiosk page, the PIN dialog and the Still there? dialog have no serious or critical violations, light and dark",
    async () => {
      const axeSource = await readFile(path.join(REPO_DIR, "node_modules", "axe-core", "axe.min.js"), "utf8");
      // axe is injected as a script: this context bypasses the page's CSP (the served page keeps it).
      const context = await launchBrowser({ bypassCSP: true, microphone: false });
      try {
        const page = await context.newPage();
        await page.clock.install();
        await page.goto(link.public_url);
        await page.getByLabel(TEXT_PROMPT).waitFor();
        await page.addScriptTag({ content: axeSource });
        const problems: string[] = [];
        const check = async (label: string) => {
          for (const colorScheme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme });
            await page.waitForTimeout(300); // colour transitions
            const found = await page.evaluate(async () => {
              type Result = { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
              const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<Result> } }).axe;
              const result = await axe.run(document, {
                runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
              });
              return result.violations
                .filter((v) => v.impact === "serious" || v.impact === "critical")
                .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
            });
            problems.push(...found.map((f) => `${label} (${colorScheme}): ${f}`));
          }
        };
        await check("question");
        await page.getByRole("button", { name: "Leave kiosk mode" }).click();
        await page.getByRole("dialog", { name: "Leave kiosk mode" }).waitFor();
        await check("PIN dialog");
        await page.getByRole("button", { name: "Cancel" }).click();
        await page.getByLabel(TEXT_PROMPT).fill("Someone typing");
        await page.clock.runFor(16_000);
        await page.getByRole("dialog", { name: "Still there?" }).waitFor();
        await check("Still there?");
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    },
    TIMEOUT_MS,
  );
});
