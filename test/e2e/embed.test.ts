/**
 * @module test/e2e/embed.test
 * The embed kit in Chromium (issue 29; docs/embedding.md): a real Earshot process on
 * `http://localhost:<port>`, and a site owner's page served by a second Bun.serve on
 * `http://127.0.0.1:<other port>` (another origin), which the workspace allows. In each of the four
 * modes (inline, popup, slide-in, button) the page's one `<script src=…/embed.js>` tag shows the
 * link; a voice answer is recorded through the iframe with Chromium's fake microphone and
 * submitted with the `data-hidden-order-id` value; the page receives `earshot:started`,
 * `earshot:submitted` (and `earshot:closed` when the overlay is closed) as DOM events, and a
 * message forged by the host page itself is not relayed. A third origin, not on the list, gets a
 * frame blocked by CSP and no events.
 *
 * With `EARSHOT_SHOTS_DIR` set, screenshots of the four modes at 390 and 1280 px are saved there.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import path from "node:path";
import type { BrowserContext, Frame, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 240_000;
const STEP_MS = 30_000;
const VOICE_PROMPT = "Tell us about your order in your own words";
const THANK_YOU = "Thanks! We read every message.";
const MODES = ["inline", "popup", "slide-in", "button"] as const;
type Mode = (typeof MODES)[number];

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let link: { uuid: string; public_url: string };
let browser: BrowserContext;
let site: ReturnType<typeof Bun.serve>;
let stranger: ReturnType<typeof Bun.serve>;

/** The site owner's page: a shop page with the snippet of `mode` and a log of the Earshot events. */
function hostPage(mode: Mode, boxOrigin: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme shop</title>
<style>body{margin:0;font:16px/1.5 Georgia,serif;background:#faf7f2;color:#2b2118}header{padding:16px 24px;background:#2b2118;color:#faf7f2;font-weight:700}main{max-width:760px;margin:0 auto;padding:24px}p{color:#5b4b3a}</style>
<script>window.earshotEvents=[];for(const t of ["earshot:started","earshot:submitted","earshot:closed"])document.addEventListener(t,(e)=>earshotEvents.push({type:e.type,detail:e.detail,target:e.target.tagName}));</script>
</head><body><header>Acme shop</header><main><h1>Thank you for your order #A-123</h1>
<p>Your parcel leaves our warehouse tomorrow. While you wait, tell us how ordering went.</p>
<script src="${boxOrigin}/embed.js" data-earshot-link="${link.public_url}" data-mode="${mode}" data-hidden-order-id="A-123" async></script>
<p>Questions about delivery? Write to help@acme.example.</p></main></body></html>`;
}

function serveSite(): ReturnType<typeof Bun.serve> {
  const box = new URL(link.public_url).origin;
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => new Response(hostPage((new URL(req.url).searchParams.get("mode") ?? "inline") as Mode, box), { headers: { "content-type": "text/html" } }),
  });
}

beforeAll(async () => {
  dataDir = await makeDataDir();
  const ws = await createWorkspace(dataDir);
  apiKey = ws.api_key;
  server = await startServer({ dataDir });
  link = await api(server, apiKey, "POST", "links/", {
    name: "Order feedback",
    settings: { thankYouMessage: THANK_YOU, hidden_fields: ["order_id"] },
    questions: [{ prompt: VOICE_PROMPT, type: "voice", required: true, configuration: { max_duration: 30 } }],
  });
  site = serveSite();
  stranger = serveSite();
  // The owner's key (workspace:write, from the CLI) lists the site's origin, and only that one.
  const created = await runCli(["token", "create", "--workspace", ws.workspace_uuid, "--name", "Owner", "--scopes", "workspace:write", "--json"], { dataDir });
  const ownerKey = JSON.parse(created.stdout).key as string;
  const saved = await api(server, ownerKey, "PATCH", "workspace/", { embed: { allowed_origins: [`http://127.0.0.1:${site.port}`] } });
  expect(saved.embed.allowed_origins).toEqual([`http://127.0.0.1:${site.port}`]);
  browser = await launchBrowser();
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  stranger?.stop(true);
  await server?.stop();
  await removeDir(dataDir);
});

/** The intake page's frame once it has loaded in `page`. */
async function intakeFrame(page: Page): Promise<Frame> {
  const deadline = Date.now() + STEP_MS;
  while (Date.now() < deadline) {
    const frame = page.frames().find((f) => f.url().startsWith(link.public_url));
    if (frame && (await frame.getByRole("group", { name: VOICE_PROMPT }).count()) > 0) return frame;
    await page.waitForTimeout(100);
  }
  throw new Error(`the intake page did not load in the frame; frames: ${page.frames().map((f) => f.url())}`);
}

const events = (page: Page) => page.evaluate(() => (window as unknown as { earshotEvents: { type: string; detail: unknown; target: string }[] }).earshotEvents);

/** Opens the site with `mode` at `width` px; the button mode's launcher is clicked. */
async function openSite(mode: Mode, width: number, origin = `http://127.0.0.1:${site.port}`): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  await page.goto(`${origin}/?mode=${mode}`);
  if (mode === "button") await page.getByRole("button", { name: "Leave feedback" }).click({ timeout: STEP_MS });
  return page;
}

async function shoot(page: Page, name: string): Promise<void> {
  const dir = process.env.EARSHOT_SHOTS_DIR;
  if (!dir) return;
  await page.waitForTimeout(500); // the panel's entrance animation
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}

async function completedResponses(): Promise<any[]> {
  const page = await api(server, apiKey, "GET", `responses/?status=completed&link=${link.uuid}&page_size=100`);
  return page.results;
}

for (const mode of MODES) {
  test(
    `${mode}: a voice answer recorded through the iframe reaches the box with its hidden field, and the page receives the events`,
    async () => {
      const before = (await completedResponses()).length;
      const page = await openSite(mode, 1280);
      try {
        const frame = await intakeFrame(page);
        if (mode === "inline") {
          // The inline frame takes the page's height as the page reports it (not the 640 px it starts with).
          const content = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
          await page.waitForFunction((h) => Math.abs(document.querySelector("iframe")!.getBoundingClientRect().height - h) <= 2, content, { timeout: STEP_MS });
          expect(content).not.toBe(640);
        }
        await shoot(page, `embed-${mode}-1280`);
        // The frame may use the microphone (allow="microphone"), and nothing else was delegated.
        const allow = await page.evaluate(() => {
          const inShadow = [...document.querySelectorAll("[data-earshot-embed]")].flatMap((h) => [...(h.shadowRoot?.querySelectorAll("iframe") ?? [])]);
          return [...document.querySelectorAll("iframe"), ...inShadow].map((f) => f.getAttribute("allow"));
        });
        expect(allow).toEqual(["microphone"]);
        // The host page cannot forge an event: its own message has the wrong origin and source.
        await page.evaluate(() => window.postMessage({ earshot: 1, type: "earshot:submitted" }, "*"));

        await frame.getByRole("button", { name: "Record" }).click({ timeout: STEP_MS });
        await frame.getByRole("button", { name: "Stop" }).waitFor({ timeout: STEP_MS });
        await page.waitForTimeout(1500);
        await frame.getByRole("button", { name: "Stop" }).click();
        await frame.getByText("Recording saved").waitFor({ timeout: STEP_MS });
        await frame.getByRole("button", { name: "Submit" }).click();
        await frame.getByText(THANK_YOU).waitFor({ timeout: STEP_MS });
        await page.waitForFunction(() => (window as any).earshotEvents.some((e: { type: string }) => e.type === "earshot:submitted"), null, {
          timeout: STEP_MS,
        });
        if (mode !== "inline") {
          await page.getByRole("button", { name: "Close Feedback" }).click();
          await page.waitForFunction(() => (window as any).earshotEvents.some((e: { type: string }) => e.type === "earshot:closed"), null, {
            timeout: STEP_MS,
          });
          expect(await page.getByRole("dialog", { name: "Feedback" }).isVisible()).toBe(false);
        }
        const detail = { link: link.public_url, mode };
        expect(await events(page)).toEqual([
          { type: "earshot:started", detail, target: "SCRIPT" },
          { type: "earshot:submitted", detail, target: "SCRIPT" },
          ...(mode === "inline" ? [] : [{ type: "earshot:closed", detail, target: "SCRIPT" }]),
        ]);
      } finally {
        await page.close();
      }
      const responses = await completedResponses();
      expect(responses.length).toBe(before + 1);
      const [latest] = responses;
      expect(latest.hidden).toEqual({ order_id: "A-123" });
      const voice = latest.answers.find((a: any) => a.question_text === VOICE_PROMPT);
      expect(voice.audio_url).toMatch(/^http/);
      expect(voice.duration).toBeGreaterThan(1);
    },
    TIMEOUT_MS,
  );
}

test(
  "an origin the workspace does not list gets a frame blocked by CSP and no events",
  async () => {
    const before = (await completedResponses()).length;
    for (const mode of ["inline", "popup"] as const) {
      const page = await openSite(mode, 1280, `http://127.0.0.1:${stranger.port}`);
      try {
        await page.waitForTimeout(3000);
        // Chromium shows its own error page instead of the refused frame: no form, no events.
        const frame = page.frames().find((f) => f !== page.mainFrame());
        expect(frame).toBeDefined();
        expect([frame!.url(), frame!.url().startsWith(link.public_url)]).toEqual([frame!.url(), false]);
        expect(await frame!.getByRole("group", { name: VOICE_PROMPT }).count()).toBe(0);
        expect(await frame!.getByRole("button", { name: "Record" }).count()).toBe(0);
        expect(await events(page)).toEqual([]);
      } finally {
        await page.close();
      }
    }
    // The refusal is the page's own CSP header: the stranger's origin is not in frame-ancestors.
    const res = await fetch(link.public_url);
    expect(res.headers.get("content-security-policy")).toContain(`frame-ancestors http://127.0.0.1:${site.port};`);
    expect((await completedResponses()).length).toBe(before);
  },
  TIMEOUT_MS,
);

test(
  "the four modes at 390 px (screenshots for a person with EARSHOT_SHOTS_DIR)",
  async () => {
    for (const mode of MODES) {
      const page = await openSite(mode, 390);
      try {
        const frame = await intakeFrame(page);
        await frame.getByRole("button", { name: "Record" }).waitFor({ timeout: STEP_MS });
        // Nothing spills sideways on a phone: the host page does not scroll horizontally.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await shoot(page, `embed-${mode}-390`);
      } finally {
        await page.close();
      }
    }
  },
  TIMEOUT_MS,
);
