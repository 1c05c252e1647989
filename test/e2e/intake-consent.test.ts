/**
 * @module test/e2e/intake-consent.test
 * Consent before recording (issue 25, DESIGN §13, docs/intake.md "Consent") against a real server
 * (from source) in Chromium with a fake microphone: the consent text shows before the microphone is
 * asked for (every `getUserMedia` call is counted by an init script wrapping the browser's own), the
 * respondent agrees, records and submits, and the response carries the consent's time and the
 * SHA-256 of the text shown (the German translation on a German page); a respondent who declines
 * types the answer instead and the microphone is never asked for.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import path from "node:path";
import type { Page } from "playwright-core";
import { makeSpeechWav } from "../helpers/audio.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const TEXT = "I agree that my voice is recorded and kept for 30 days.";
const TEXT_DE = "Ich bin einverstanden, dass meine Stimme aufgenommen und 30 Tage lang aufbewahrt wird.";
const PROMPT = "Tell us about your visit";
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let wav: string;

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  wav = await makeSpeechWav("the visit was lovely", path.join(dataDir, "speech.wav"));
}, TIMEOUT_MS);

afterAll(async () => {
  await server?.stop();
  await removeDir(dataDir);
});

/** Counts the page's calls of the browser's own getUserMedia (`window.__getUserMediaCalls`). */
async function countMicrophoneRequests(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __getUserMediaCalls: number };
    w.__getUserMediaCalls = 0;
    const own = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getUserMedia = (constraints) => {
      w.__getUserMediaCalls++;
      return own(constraints);
    };
  });
}
const microphoneRequests = (page: Page) => page.evaluate(() => (window as unknown as { __getUserMediaCalls: number }).__getUserMediaCalls);

async function onlyResponse(linkUuid: string): Promise<any> {
  const page = await api(server, apiKey, "GET", `links/${linkUuid}/responses/?status=all`);
  expect(page.count).toBe(1);
  return page.results[0];
}

describe("consent before recording", () => {
  test(
    "the consent text (German) shows before the microphone is asked for; after agreeing the respondent records; the response carries the consent",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Besuch",
        settings: { consent: { text: TEXT, required_before: "recording" }, thankYouMessage: "Danke!" },
        translations: { de: { consent: TEXT_DE } },
        questions: [{ prompt: PROMPT, type: "voice", required: true, configuration: { max_duration: 30 } }],
      });
      const browser = await launchBrowser({ fakeAudioWav: wav });
      try {
        const page = await browser.newPage();
        await page.setExtraHTTPHeaders({ "accept-language": "de-DE,de;q=0.9" });
        await countMicrophoneRequests(page);
        await page.goto(link.public_url);
        await page.getByRole("group", { name: PROMPT }).waitFor();
        await page.getByRole("button", { name: "Antwort aufnehmen" }).click();
        const dialog = page.getByRole("dialog", { name: "Ihre Einwilligung" });
        await dialog.waitFor();
        expect(await dialog.textContent()).toContain(TEXT_DE);
        // Nothing has asked for the microphone yet, and nothing was recorded.
        expect(await microphoneRequests(page)).toBe(0);
        // The consent is what the respondent reads now: no "waiting for the microphone" beside it.
        expect(await page.getByText("Warten auf das Mikrofon").count()).toBe(0);
        await page.getByRole("button", { name: "Ich stimme zu" }).click();
        await page.getByRole("button", { name: "Aufnahme beenden" }).waitFor();
        expect(await microphoneRequests(page)).toBe(1);
        await page.waitForTimeout(1500);
        await page.getByRole("button", { name: "Aufnahme beenden" }).click();
        await page.getByText("Aufnahme gespeichert").waitFor();
        await page.getByRole("button", { name: "Absenden" }).click();
        await page.getByText("Danke!").waitFor();
      } finally {
        await browser.close();
      }
      const response = await onlyResponse(link.uuid);
      expect(response.status).toBe("completed");
      expect(response.consent.text_sha256).toBe(sha(TEXT_DE));
      expect(response.consent.given_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(response.answers[0].duration).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );

  test(
    "a respondent who declines types the answer instead; the microphone is never asked for and the response has no consent",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Visit",
        settings: { consent: { text: TEXT } },
        questions: [{ prompt: PROMPT, type: "voice_text_fallback", required: true }],
      });
      const browser = await launchBrowser({ fakeAudioWav: wav });
      try {
        const page = await browser.newPage();
        await page.setExtraHTTPHeaders({ "accept-language": "en" });
        await countMicrophoneRequests(page);
        await page.goto(link.public_url);
        await page.getByRole("button", { name: "Record" }).click();
        await page.getByRole("dialog", { name: "Your consent" }).waitFor();
        await page.getByRole("button", { name: "No, thanks" }).click();
        await page.getByLabel(PROMPT).fill("Typed, no recording please.");
        expect(await page.textContent("body")).toContain("You can still answer by typing.");
        await page.getByRole("button", { name: "Submit" }).click();
        await page.getByText("Thanks", { exact: false }).first().waitFor();
        expect(await microphoneRequests(page)).toBe(0);
      } finally {
        await browser.close();
      }
      const response = await onlyResponse(link.uuid);
      expect(response).toMatchObject({ status: "completed", consent: null });
      expect(response.answers[0].value).toBe("Typed, no recording please.");
    },
    TIMEOUT_MS,
  );
});
