/**
 * @module test/e2e/console-csp.test
 * The console under its real Content-Security-Policy (security review finding 3): Chromium
 * WITHOUT `bypassCSP` (the other console tests need it to inject axe-core) against a real
 * `earshot serve`. The owner signs in through the setup URL, a link has a voice question and an
 * image-choice question whose cards live on another origin (an image and a video), two responses
 * are submitted through the public intake API; then every console page is opened, and none
 * raises a `securitypolicyviolation` event or a CSP console message, the recordings' `<audio>`
 * elements load (readyState ≥ 1), and the chosen card's image and video load.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Server } from "bun";
import type { BrowserContext, Page } from "playwright-core";
import { makeSpeechWav } from "../helpers/audio.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { makeDataDir, removeDir } from "./voice-flow.ts";
import { apiWrite, createOwner, setupUrlOf } from "../helpers/console-browser.ts";

/** A real 1×1 PNG. */
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

let server: RunningServer;
let cards: Server<undefined>;
let browser: BrowserContext;
let dataDir: string;
let wav: Uint8Array<ArrayBuffer>;

beforeAll(async () => {
  dataDir = await makeDataDir();
  wav = new Uint8Array(await readFile(await makeSpeechWav("The checkout was slow.", path.join(dataDir, "speech.wav"))));
  server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1" } });
  // The operator's media host: another origin (its own port) serving a card image and a card video.
  cards = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/calm.png") return new Response(PNG, { headers: { "content-type": "image/png" } });
      if (p === "/bold.wav") return new Response(wav, { headers: { "content-type": "audio/wav" } });
      return new Response("not found", { status: 404 });
    },
  });
  browser = await launchBrowser({ microphone: false });
});

afterAll(async () => {
  await browser?.close();
  cards?.stop(true);
  await server?.stop();
  if (dataDir) await removeDir(dataDir);
});

/** Records every CSP violation of every document the page loads, and CSP console messages. */
async function watchCsp(page: Page): Promise<{ messages: string[]; violations: () => Promise<string[]> }> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const messages: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) messages.push(m.text());
  });
  return { messages, violations: () => page.evaluate(() => [...((window as unknown as { __csp?: string[] }).__csp ?? [])]) };
}

/** Submits a response through the public intake API: card `cardId` and (optionally) a recording. */
async function respond(workspaceSlug: string, link: any, cardId: string, withRecording: boolean): Promise<string> {
  const base = `${server.baseUrl}/api/v1/intake/${workspaceSlug}/${link.slug}/sessions/`;
  const json = { "content-type": "application/json" };
  const s = await (await fetch(base, { method: "POST", headers: json, body: "{}" })).json();
  const [voice, image] = link.questions;
  if (withRecording)
    expect(
      (await fetch(`${base}${s.session_id}/answers/${voice.uuid}/audio/`, { method: "POST", headers: { "content-type": "audio/wav" }, body: wav })).status,
    ).toBe(200);
  expect((await fetch(`${base}${s.session_id}/answers/${image.uuid}/`, { method: "PUT", headers: json, body: JSON.stringify({ value: cardId }) })).status).toBe(
    200,
  );
  expect((await fetch(`${base}${s.session_id}/submit/`, { method: "POST", headers: json, body: "{}" })).status).toBe(200);
  return s.response_uuid;
}

/** Polls a media element (first match of `selector`) until its readyState is at least 1. */
async function mediaReady(page: Page, selector: string): Promise<number> {
  await page.locator(selector).first().waitFor({ state: "attached" });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const state = await page.evaluate((sel) => {
      const el = document.querySelector<HTMLMediaElement>(sel)!;
      return { ready: el.readyState, error: el.error?.code ?? null };
    }, selector);
    if (state.ready >= 1 || state.error !== null || Date.now() > deadline) return state.error === null ? state.ready : -state.error;
    await Bun.sleep(100);
  }
}

test("console pages raise no CSP violation; recordings, card images and card videos load", async () => {
  const page = await browser.newPage();
  const csp = await watchCsp(page);
  const setupUrl = await setupUrlOf(server);
  const origin = new URL(setupUrl).origin;
  await createOwner(page, setupUrl);

  const cardsOrigin = `http://127.0.0.1:${cards.port}`;
  const created = await apiWrite(page, "POST", "links/", {
    name: "Policy check",
    questions: [
      { prompt: "Tell us in your own words", type: "voice", configuration: { max_duration: 30 } },
      {
        prompt: "Pick a design",
        type: "image_choice",
        configuration: {
          cards: [
            { id: "calm", label: "Calm", media_url: `${cardsOrigin}/calm.png`, media_type: "image" },
            { id: "bold", label: "Bold", media_url: `${cardsOrigin}/bold.wav`, media_type: "video" },
          ],
        },
      },
    ],
  });
  expect(created.status).toBe(201);
  const link = created.body;
  const session = await (await page.request.get(`${origin}/api/v1/auth/session/`)).json();
  const workspaceSlug: string = session.memberships[0].workspace_slug;
  const withImage = await respond(workspaceSlug, link, "calm", true);
  const withVideo = await respond(workspaceSlug, link, "bold", false);

  const pages: [string, string | RegExp][] = [
    ["/console/links/", "Links"],
    [`/console/links/${link.uuid}/`, /Policy check|Edit link/],
    [`/console/links/${link.uuid}/responses/`, /Responses/],
    [`/console/links/${link.uuid}/dashboard/`, /Policy check|Dashboard/],
    ["/console/responses/", /Responses/],
    ["/console/keys/", /API keys/],
    ["/console/webhooks/", /Webhooks/],
    ["/console/settings/", /Settings|Workspace/],
  ];
  for (const [p, heading] of pages) {
    await page.goto(`${origin}${p}`);
    await page.getByRole("heading", { level: 1, name: heading }).first().waitFor();
    expect({ page: p, violations: await csp.violations() }).toEqual({ page: p, violations: [] });
  }

  // A response with a recording and the image card.
  await page.goto(`${origin}/console/responses/${withImage}/`);
  await page.getByRole("heading", { level: 1, name: "Response" }).waitFor();
  const audio = await mediaReady(page, "audio");
  const img = page.getByRole("img", { name: "Calm" });
  await img.waitFor();
  await page.waitForFunction(() => [...document.images].some((i) => i.alt === "Calm" && i.complete));
  expect({ page: "response with recording", violations: await csp.violations() }).toEqual({ page: "response with recording", violations: [] });
  expect(audio).toBeGreaterThanOrEqual(1);
  expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1);

  // A response with the video card.
  await page.goto(`${origin}/console/responses/${withVideo}/`);
  await page.getByRole("heading", { level: 1, name: "Response" }).waitFor();
  const video = await mediaReady(page, "video");
  expect({ page: "response with video card", violations: await csp.violations() }).toEqual({ page: "response with video card", violations: [] });
  expect(video).toBeGreaterThanOrEqual(1);

  expect(csp.messages).toEqual([]);
  // The header holds the console's own policy: still only our scripts, and never framed.
  const res = await fetch(`${origin}/console/responses/${withImage}/`);
  const header = res.headers.get("content-security-policy") ?? "";
  expect(header).toContain("script-src 'self'");
  expect(header).toContain("frame-ancestors 'none'");
  expect(header).not.toContain("unsafe-inline");
}, 180_000);
