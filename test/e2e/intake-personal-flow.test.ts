/**
 * @module test/e2e/intake-personal-flow.test
 * Issue 25's whole respondent path in one flow, against a real server (from source), Chromium with
 * a fake microphone, and a real HTTPS webhook receiver: a respondent opens a personal link
 * (invitation with the hidden `order_id` baked in), agrees to the consent text, records, submits;
 * the receiver's `response.submitted` carries `hidden.order_id` and the consent; opening the same
 * URL again shows the "already used" page. Screenshots at 375 px of the consent step and the used
 * page go to `EARSHOT_SCREENSHOT_DIR` when set (for looking at them, not asserted).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { makeSpeechWav } from "../helpers/audio.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from "../helpers/https-receiver.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const PROMPT = "Tell us about your order";
const CONSENT = "I agree that my voice is recorded and kept for 30 days.";
const USED = "This personal link was already used to send a response.";

let dataDir: string;
let certs: TestCertificates;
let receiver: HttpsReceiver;
let server: RunningServer;
let apiKey: string;
let browser: BrowserContext;

beforeAll(async () => {
  dataDir = await makeDataDir();
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver({ certs });
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir, env: { EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1", EARSHOT_WEBHOOK_CA_FILE: certs.caFile } });
  const wav = await makeSpeechWav("the order came on time", path.join(dataDir, "speech.wav"));
  browser = await launchBrowser({ fakeAudioWav: wav });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
  if (certs) await removeDir(certs.dir);
  if (dataDir) await removeDir(dataDir);
});

/** A 375 px wide screenshot into `EARSHOT_SCREENSHOT_DIR`, when that is set. */
async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.EARSHOT_SCREENSHOT_DIR;
  if (dir) await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

test(
  "personal link with a hidden field: consent, record, submit; the webhook gets hidden.order_id and the consent; reuse shows the already-used page",
  async () => {
    const link = await api(server, apiKey, "POST", "links/", {
      name: "Order voice feedback",
      settings: {
        access: "invitation",
        hidden_fields: ["order_id"],
        consent: { text: CONSENT, required_before: "recording" },
        thankYouMessage: "Thanks, order noted.",
      },
      questions: [{ prompt: PROMPT, type: "voice", required: true, configuration: { max_duration: 30 } }],
      on_finished: { webhook_url: receiver.url, webhook_secret: "personal-secret" },
    });
    const created = await api(server, apiKey, "POST", `links/${link.uuid}/invitations/`, { hidden: [{ order_id: "A-1" }] });
    const invitation = created.results[0];

    const page = await browser.newPage();
    await page.setViewportSize({ width: 375, height: 740 });
    await page.setExtraHTTPHeaders({ "accept-language": "en" });
    const pageErrors: string[] = [];
    page.on("pageerror", (err) => pageErrors.push(err.message));
    await page.goto(invitation.url);
    await page.getByRole("group", { name: PROMPT }).waitFor();
    await page.getByRole("button", { name: "Record" }).click();
    const dialog = page.getByRole("dialog", { name: "Your consent" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(CONSENT);
    await screenshot(page, "personal-consent-375");
    await page.getByRole("button", { name: "I agree" }).click();
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await page.waitForTimeout(1500);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByText("Recording saved").waitFor();
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByText("Thanks, order noted.").waitFor();

    await receiver.waitFor((rs) => rs.length >= 1, 60_000);
    const event = JSON.parse(receiver.requests[0]!.body);
    expect(event.type).toBe("response.submitted");
    expect(event.data.response.hidden).toEqual({ order_id: "A-1" });
    expect(event.data.response.consent).toMatchObject({ text_sha256: createHash("sha256").update(CONSENT, "utf8").digest("hex") });
    expect(event.data.response.consent.given_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const again = await browser.newPage();
    await again.setViewportSize({ width: 375, height: 740 });
    await again.goto(invitation.url);
    await again.getByText(USED).waitFor();
    expect(await again.getByRole("button", { name: "Record" }).count()).toBe(0);
    await screenshot(again, "personal-used-375");
    expect(pageErrors).toEqual([]);
  },
  TIMEOUT_MS,
);
