/**
 * @module test/e2e/intake-probing.test
 * Dynamic probing on the intake page (docs/intake.md "Dynamic probing"), against a real server
 * in Chromium with a fake microphone: a vague typed answer gets a follow-up question, which
 * survives Back and a reload and is answered by typing; a recorded answer gets a follow-up that
 * is answered by recording; the responses API returns both follow-ups with their answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { makeSpeechWav } from "../helpers/audio.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { FIXTURE_TRANSCRIPT, answerTo, api, createWorkspace, listResponses, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const STEP_MS = 20_000;
const TEXT_PROMPT = "What did you think of the product?";
const VOICE_PROMPT = "Tell us more in your own words";
const TYPED_FOLLOW_UP = "The export button crashed twice while I was saving a report.";
const THANK_YOU = "Thanks, that helps a lot.";
const PROBING = { enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 0.95, max_follow_ups: 1 } };

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let browser: BrowserContext;

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  const wav = await makeSpeechWav("The checkout page was slow and confusing.", path.join(dataDir, "speech.wav"));
  browser = await launchBrowser({ fakeAudioWav: wav });
  // Every text the "Thinking…" status shows, however briefly.
  await browser.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __thinking: string[] }).__thinking = seen;
    new MutationObserver(() => {
      const text = document.querySelector(".thinking")?.textContent;
      if (text && seen.at(-1) !== text) seen.push(text);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

/** The label of the follow-up on screen (its question), once one is shown. */
async function followUpQuestion(page: Page): Promise<string> {
  const label = page.locator(".question-follow-up label.prompt");
  await label.waitFor({ timeout: STEP_MS });
  return (await label.textContent())!.trim();
}

describe("dynamic probing on the intake page", () => {
  test(
    "typed and recorded answers get follow-ups; they survive a reload and reach the API",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Probing",
        settings: { thankYouMessage: THANK_YOU },
        questions: [
          { prompt: TEXT_PROMPT, type: "text", required: true, ...PROBING },
          { prompt: VOICE_PROMPT, type: "voice", required: true, fallback_to_text: false, configuration: { max_duration: 30 }, ...PROBING },
        ],
      });
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
      page.on("response", (res) => {
        if (res.status() >= 400) problems.push(`${res.request().method()} ${res.url()} → ${res.status()}`);
      });
      try {
        await page.goto(link.public_url);
        await page.getByLabel(TEXT_PROMPT).fill("stuff");
        await page.getByRole("button", { name: "Next" }).click();

        // A vague answer: the follow-up replaces the question, labelled by its own text.
        const question = await followUpQuestion(page);
        expect(question.length).toBeGreaterThan(5);
        const box = page.getByRole("textbox", { name: question, exact: true });
        await box.waitFor();
        expect(await page.evaluate(() => (window as unknown as { __thinking: string[] }).__thinking)).toContain("Thinking…");

        // Back shows the question again; Next returns to the same follow-up without a new probe.
        await page.getByRole("button", { name: "Back" }).click();
        expect(await page.getByLabel(TEXT_PROMPT).inputValue()).toBe("stuff");
        await page.getByRole("button", { name: "Next" }).click();
        expect(await followUpQuestion(page)).toBe(question);

        // A reload shows the unanswered follow-up again.
        await page.reload();
        await page.getByRole("textbox", { name: question, exact: true }).waitFor({ timeout: STEP_MS });

        // Follow-ups must be answered before moving on.
        await page.getByRole("button", { name: "Next" }).click();
        await page.getByRole("alert").filter({ hasText: "follow-up" }).waitFor({ timeout: STEP_MS });
        await page.getByRole("textbox", { name: question, exact: true }).fill(TYPED_FOLLOW_UP);
        await page.getByRole("button", { name: "Next" }).click();

        // max_follow_ups is 1: on to the voice question.
        await page.getByRole("group", { name: VOICE_PROMPT }).waitFor({ timeout: STEP_MS });
        await page.getByRole("button", { name: "Record" }).click();
        await page.getByRole("button", { name: "Stop" }).waitFor();
        await page.waitForTimeout(2000);
        await page.getByRole("button", { name: "Stop" }).click();
        await page.getByText("Recording saved").waitFor({ timeout: STEP_MS });
        await page.getByRole("button", { name: "Submit" }).click();

        // The recording is transcribed by the probe; its follow-up is answered by voice.
        const voiceQuestion = await followUpQuestion(page);
        await page.getByRole("textbox", { name: voiceQuestion, exact: true }).waitFor();
        await page.getByRole("button", { name: "Record" }).click();
        await page.getByRole("button", { name: "Stop" }).waitFor();
        await page.waitForTimeout(1500);
        await page.getByRole("button", { name: "Stop" }).click();
        await page.getByText("Recording saved.").waitFor({ timeout: STEP_MS });
        await page.getByRole("button", { name: "Submit" }).click();
        await page.getByText(THANK_YOU).waitFor({ timeout: STEP_MS });
        expect(problems).toEqual([]);

        const [response] = await listResponses(server, apiKey, link.uuid);
        expect(response.status).toBe("completed");
        const typed = answerTo(response, TEXT_PROMPT);
        expect(typed.value).toBe("stuff");
        expect(typed.follow_ups).toHaveLength(1);
        expect(typed.follow_ups[0]).toMatchObject({ question, answer: TYPED_FOLLOW_UP });
        expect(typed.follow_ups[0].audio_url ?? null).toBeNull();
        const voice = answerTo(response, VOICE_PROMPT);
        expect(voice.follow_ups).toHaveLength(1);
        expect(voice.follow_ups[0]).toMatchObject({ question: voiceQuestion, answer: FIXTURE_TRANSCRIPT, transcription: FIXTURE_TRANSCRIPT });
        expect(voice.follow_ups[0].audio_url).toMatch(/^http/);
      } catch (err) {
        throw new Error(`${err instanceof Error ? err.message : err}\nPage problems:\n${problems.join("\n")}\nServer output:\n${server.output()}`);
      } finally {
        await page.close();
      }
    },
    TIMEOUT_MS,
  );
});
