/**
 * @module test/e2e/voice-flow
 * The respondent's path through a real Earshot process, shared by the e2e tests: a workspace from
 * the CLI, a link with a text, a rating and a voice question from the API, the intake page in
 * Chromium with a fake microphone playing espeak-ng speech, and polling of the responses API
 * until the recording is transcribed.
 */
import { expect } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { launchBrowser } from "../helpers/browser.ts";
import { REPO_DIR, runCli, startServer, type RunningServer } from "../helpers/process.ts";

/** What the fixture ASR model (shared/models/fixture/whisper-tiny-random) says for any sound. */
import { FIXTURE_TRANSCRIPT } from "../helpers/fixtures.ts";

export { FIXTURE_TRANSCRIPT };

export const TEXT_PROMPT = "What should we improve first?";
export const RATING_PROMPT = "How would you rate the product?";
export const VOICE_PROMPT = "Tell us about your experience in your own words";
export const THANK_YOU = "Thank you! Your feedback reached the team.";
export const TEXT_ANSWER = "Faster exports, please.";
export const RATING_ANSWER = 4;

/** How a server process is started: from source (default) or a compiled binary, plus env. */
export type ServerOptions = { bin?: string[]; env?: Record<string, string> };

/** The compiled binary to test: `EARSHOT_BIN`, else `dist/earshot` when it exists, else null. */
export function findBinary(): string | null {
  if (process.env.EARSHOT_BIN) return path.resolve(process.env.EARSHOT_BIN);
  const built = path.join(REPO_DIR, "dist", "earshot");
  return existsSync(built) ? built : null;
}

/** A fresh data directory; remove it with {@link removeDir}. */
export function makeDataDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), "earshot-e2e-"));
}

/** Removes a directory tree, ignoring absence. */
export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/** `workspace create --json` through the CLI; returns its one JSON object. */
export async function createWorkspace(
  dataDir: string,
  bin?: string[],
): Promise<{ workspace_uuid: string; workspace_slug: string; api_key: string; token_uuid: string }> {
  const result = await runCli(["workspace", "create", "--name", "E2E Voice", "--plan", "enterprise", "--json"], { dataDir, bin });
  if (result.code !== 0) throw new Error(`workspace create exited ${result.code}: ${result.stderr}${result.stdout}`);
  const created = JSON.parse(result.stdout);
  expect(created.api_key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
  return created;
}

/** Calls the REST API with the workspace key; fails the test on a non-2xx answer. */
export async function api(server: RunningServer, apiKey: string, method: string, urlPath: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.baseUrl}/api/v1/${urlPath}`, {
    method,
    headers: {
      Authorization: `Bearer ${apiKey}`,
      Accept: "application/json",
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} /api/v1/${urlPath} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** Creates the three-question link (text, rating of 5 stars, voice) through `POST links/`. */
export async function createVoiceLink(server: RunningServer, apiKey: string): Promise<{ uuid: string; public_url: string; questions: any[] }> {
  const link = await api(server, apiKey, "POST", "links/", {
    name: "E2E voice feedback",
    settings: { thankYouMessage: THANK_YOU, description: "A test of the whole voice path." },
    questions: [
      { prompt: TEXT_PROMPT, type: "text", required: true },
      { prompt: RATING_PROMPT, type: "rating", required: true, configuration: { scale_type: "stars", max_value: 5 } },
      { prompt: VOICE_PROMPT, type: "voice", required: true, configuration: { max_duration: 30 } },
    ],
  });
  expect(link.public_url).toMatch(/^http:\/\/localhost:\d+\/w\/[a-z0-9-]+\/i\/[a-z0-9-]+$/);
  return link;
}

/**
 * Opens `publicUrl` with a fake microphone playing `wav`, answers the text and rating questions
 * and records `recordMs` of voice, all through accessible names (DESIGN §9), then submits and
 * waits for the thank-you message.
 */
export async function answerInBrowser(publicUrl: string, wav: string, recordMs: number): Promise<void> {
  const context = await launchBrowser({ fakeAudioWav: wav });
  const problems: string[] = [];
  try {
    const page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
    page.on("response", (res) => {
      if (res.status() >= 400) problems.push(`${res.request().method()} ${res.url()} → ${res.status()}`);
    });
    await page.goto(publicUrl);

    await page.getByLabel(TEXT_PROMPT).fill(TEXT_ANSWER);
    await page.getByRole("button", { name: "Next" }).click();

    const rating = page.getByRole("radiogroup", { name: RATING_PROMPT });
    await rating.getByRole("radio", { name: `${RATING_ANSWER} stars` }).check();
    await page.getByRole("button", { name: "Next" }).click();

    await page.getByRole("group", { name: VOICE_PROMPT }).waitFor();
    await page.getByRole("button", { name: "Record" }).click();
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await page.waitForTimeout(recordMs);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByText("Recording saved").waitFor();

    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByText(THANK_YOU).waitFor();
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : err}\nPage problems:\n${problems.join("\n")}`);
  } finally {
    await context.close();
  }
}

/** The link's responses (`status=all`), newest first. */
export async function listResponses(server: RunningServer, apiKey: string, linkUuid: string): Promise<any[]> {
  const page = await api(server, apiKey, "GET", `links/${linkUuid}/responses/?status=all`);
  return page.results;
}

/** Polls the responses API until `done(response)` holds for the first response (60 s). */
export async function waitForResponse(
  server: RunningServer,
  apiKey: string,
  linkUuid: string,
  done: (response: any) => boolean,
  timeoutMs = 60_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any = null;
  while (Date.now() < deadline) {
    [last] = await listResponses(server, apiKey, linkUuid);
    if (last && done(last)) return last;
    await Bun.sleep(250);
  }
  throw new Error(`Timed out waiting for the response. Last seen:\n${JSON.stringify(last, null, 2)}\nServer output:\n${server.output()}`);
}

/** The answer of a response to the question with this prompt. */
export function answerTo(response: any, prompt: string): any {
  const answer = response.answers.find((a: any) => a.question_text === prompt);
  if (!answer) throw new Error(`No answer to "${prompt}" in ${JSON.stringify(response.answers)}`);
  return answer;
}

/** True once the voice answer's transcription finished (completed or failed). */
export function isTranscribed(response: any): boolean {
  return ["completed", "failed"].includes(answerTo(response, VOICE_PROMPT).transcription_status);
}

/** Checks the typed answers and the voice answer of a completed response. */
export function expectAnswers(response: any, transcript: (text: string) => void): void {
  expect(response.status).toBe("completed");
  expect(answerTo(response, TEXT_PROMPT).value).toBe(TEXT_ANSWER);
  const rating = answerTo(response, RATING_PROMPT);
  expect(rating.value).toBe(RATING_ANSWER);
  expect(rating.rating_details).toEqual({ value: RATING_ANSWER, max_value: 5, scale_type: "stars" });
  const voice = answerTo(response, VOICE_PROMPT);
  expect(voice.transcription_status).toBe("completed");
  expect(voice.audio_url).toMatch(/^http/);
  expect(voice.duration).toBeGreaterThan(1);
  transcript(String(voice.transcription ?? "").trim());
}

/**
 * The whole path against one server: workspace (CLI), link (API), page (Chromium), submit,
 * then the transcribed response. With `expectTranscript` the transcript is checked by that
 * function, else it must equal {@link FIXTURE_TRANSCRIPT}.
 */
export async function runVoiceFlow(
  serverOpts: ServerOptions,
  opts: { wav: string; recordMs?: number; expectTranscript?: (text: string) => void },
): Promise<void> {
  const dataDir = await makeDataDir();
  let server: RunningServer | null = null;
  try {
    const ws = await createWorkspace(dataDir, serverOpts.bin);
    server = await startServer({ dataDir, ...serverOpts });
    const link = await createVoiceLink(server, ws.api_key);
    await answerInBrowser(link.public_url, opts.wav, opts.recordMs ?? 2000);
    const response = await waitForResponse(server, ws.api_key, link.uuid, isTranscribed);
    expectAnswers(response, opts.expectTranscript ?? ((text) => expect(text).toBe(FIXTURE_TRANSCRIPT)));
  } finally {
    await server?.stop();
    await removeDir(dataDir);
  }
}
