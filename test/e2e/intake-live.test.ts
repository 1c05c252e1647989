/**
 * @module test/e2e/intake-live.test
 * Live partial transcripts on the intake page (`settings.live_transcription`; DESIGN §9),
 * against a real server in Chromium with a fake microphone: the recorder streams its chunks over
 * the WebSocket and the "Live transcript" region shows the fixture transcript while or right
 * after recording; when the socket cannot connect, recording and the upload still work.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { makeSpeechWav } from "../helpers/audio.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { FIXTURE_TRANSCRIPT, answerTo, api, createWorkspace, isTranscribed, makeDataDir, removeDir, VOICE_PROMPT, waitForResponse } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const STEP_MS = 20_000;
const RECORD_MS = 3000;

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let browser: BrowserContext;

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  const wav = await makeSpeechWav("The quick brown fox jumps over the lazy dog.", path.join(dataDir, "speech.wav"));
  browser = await launchBrowser({ fakeAudioWav: wav });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

/** A link with one voice question and live transcription on (one per test: a fresh session). */
function createLiveLink(): Promise<{ uuid: string; public_url: string }> {
  return api(server, apiKey, "POST", "links/", {
    name: "Live transcription",
    settings: { live_transcription: true },
    questions: [{ prompt: VOICE_PROMPT, type: "voice", required: true, fallback_to_text: false, configuration: { max_duration: 30 } }],
  });
}

/** Opens the link, records for {@link RECORD_MS} and waits for the upload; returns page problems. */
async function record(page: Page, url: string): Promise<string[]> {
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console: ${msg.text()}`);
  });
  await page.goto(url);
  await page.getByRole("group", { name: VOICE_PROMPT }).waitFor();
  await page.getByRole("button", { name: "Record" }).click();
  await page.getByRole("button", { name: "Stop" }).waitFor();
  await page.waitForTimeout(RECORD_MS);
  await page.getByRole("button", { name: "Stop" }).click();
  await page.getByText("Recording saved").waitFor({ timeout: STEP_MS });
  return problems;
}

describe("live transcription on the intake page", () => {
  test(
    "the live transcript region shows the transcript while or right after recording",
    async () => {
      const link = await createLiveLink();
      const page = await browser.newPage();
      // What the server sent (Chromium does not report the page's Blob frames to Playwright).
      const received: { type: string; text?: string; duration?: number }[] = [];
      page.on("websocket", (ws) => ws.on("framereceived", (f) => void received.push(JSON.parse(String(f.payload)))));
      try {
        const region = page.getByRole("status", { name: "Live transcript" });
        const problems = await record(page, link.public_url);
        await region.filter({ hasText: FIXTURE_TRANSCRIPT }).waitFor({ timeout: STEP_MS });
        expect((await region.textContent())!.trim()).toBe(FIXTURE_TRANSCRIPT);
        expect(problems).toEqual([]);
        // The server got the streamed chunks: ready, partials, then a final covering the recording.
        for (let i = 0; i < 100 && !received.some((m) => m.type === "final"); i++) await Bun.sleep(100);
        expect(received[0]?.type).toBe("ready");
        const final = received.find((m) => m.type === "final");
        expect(final).toMatchObject({ text: FIXTURE_TRANSCRIPT });
        expect(final!.duration).toBeGreaterThan(RECORD_MS / 1000 - 1);

        // The uploaded recording is what is stored.
        await page.getByRole("button", { name: "Submit" }).click();
        await page.getByText("Thanks for your response!").waitFor({ timeout: STEP_MS });
        const response = await waitForResponse(server, apiKey, link.uuid, (r) => isTranscribed(r));
        const voice = answerTo(response, VOICE_PROMPT);
        expect(voice.audio_url).toMatch(/^http/);
        expect(voice.duration).toBeGreaterThan(2);
        expect(voice.transcription).toBe(FIXTURE_TRANSCRIPT);
      } finally {
        await page.close();
      }
    },
    TIMEOUT_MS,
  );

  test(
    "when the socket cannot connect, recording and the upload still work",
    async () => {
      const link = await createLiveLink();
      const page = await browser.newPage();
      // Every WebSocket of this page goes to a same-origin URL that does not upgrade (404).
      await page.addInitScript(() => {
        const Real = window.WebSocket;
        const Broken = function (this: unknown, url: string | URL) {
          return new Real(String(url).replace("/live/", "/no-such-socket/"));
        } as unknown as typeof WebSocket;
        Object.assign(Broken, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
        window.WebSocket = Broken;
      });
      try {
        const problems = await record(page, link.public_url);
        expect(await page.getByRole("status", { name: "Live transcript" }).textContent()).toBe("");
        // Chromium logs the failed connection itself; nothing else may go wrong.
        expect(problems.filter((p) => !/WebSocket connection to '[^']*\/no-such-socket\//.test(p))).toEqual([]);
        await page.getByRole("button", { name: "Submit" }).click();
        await page.getByText("Thanks for your response!").waitFor({ timeout: STEP_MS });
      } finally {
        await page.close();
      }
    },
    TIMEOUT_MS,
  );
});
