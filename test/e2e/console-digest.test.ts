/**
 * @module test/e2e/console-digest.test
 * Settings › Your account › "Email digest" in Chromium against a real server (issue 28;
 * docs/console.md "Email digests"): the owner chooses "Weekly (Mondays)", the console says it is
 * saved, a reload shows the choice, the API agrees and the audit log has the change. The section
 * passes axe; screenshots at 1280 and 390 px (test-results/console/digest-*.png).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { expectAccessible, SCREENSHOT_DIR, setupUrlOf } from "./console-walk.ts";
import { makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const OWNER = { name: "Ada Lovelace", email: "ada@example.com", password: "correct horse battery" };

let dataDir: string;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  dataDir = await makeDataDir();
  server = await startServer({ dataDir, env: { EARSHOT_SMTP_URL: "smtp://localhost:2525/", EARSHOT_MAIL_FROM: "Earshot <earshot@example.com>" } });
  const setupUrl = await setupUrlOf(server);
  browser = await launchBrowser({ microphone: false, bypassCSP: true });
  page = await browser.newPage();
  await page.goto(setupUrl);
  await page.getByLabel("Name").fill(OWNER.name);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("navigation", { name: "Console" }).waitFor();
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

test(
  'the owner chooses a weekly "Email digest"; it is saved, shown after a reload, and audited',
  async () => {
    const origin = new URL(page.url()).origin;
    await page.goto(`${origin}/console/settings/`);
    const account = page.getByRole("region", { name: "Your account" });
    const select = account.getByLabel("Email digest");
    await expect(select.inputValue()).resolves.toBe("off");
    await select.selectOption({ label: "Weekly (Mondays)" });
    await account.getByText("Email digest saved.").waitFor();
    await page.reload();
    await expect(page.getByRole("region", { name: "Your account" }).getByLabel("Email digest").inputValue()).resolves.toBe("weekly");
    const api = await page.evaluate(async () => (await fetch("/api/v1/auth/notifications/")).json());
    expect(api).toMatchObject({ digest: "weekly", mail_configured: true });
    const audit = await page.evaluate(async () => (await fetch("/api/v1/audit/?action=member.digest_changed")).json());
    expect(audit.results.map((e: { target: { label: string } }) => e.target.label)).toEqual([`${OWNER.email}: weekly`]);
    await expectAccessible(page, "settings with the email digest");
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await page.getByRole("region", { name: "Your account" }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `digest-account-${width}.png`) });
    }
  },
  TIMEOUT_MS,
);
