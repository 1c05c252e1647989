/**
 * @module test/e2e/console-retention.test
 * Settings › Retention in Chromium against a real server (issue 25; docs/privacy.md "Retention"):
 * "Save retention" stays disabled until "Check what it deletes" showed the dry run's counts of the
 * values in the form; changing a value asks for a new check; saving stores the policy
 * (`GET workspace/`). The section passes axe.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { expectAccessible, setupUrlOf } from "./console-walk.ts";
import { makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const OWNER = { name: "Ada Lovelace", email: "ada@example.com", password: "correct horse battery" };

let dataDir: string;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  dataDir = await makeDataDir();
  server = await startServer({ dataDir });
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
  "a retention policy is saved only after its dry-run count is shown",
  async () => {
    await page.goto(`${new URL(page.url()).origin}/console/settings/`);
    const section = page.getByRole("region", { name: "Retention" });
    await section.getByLabel("Delete responses after (days)").waitFor();
    const save = section.getByRole("button", { name: "Save retention" });
    const check = section.getByRole("button", { name: "Check what it deletes" });
    expect(await save.isDisabled()).toBe(true);

    await section.getByLabel("Delete responses after (days)").fill("90");
    await section.getByLabel("Delete recordings once transcribed (keep the transcript)").check();
    await check.click();
    await section.getByText("Saving this policy now deletes 0 responses and the recordings of 0 answers.").waitFor();
    expect(await save.isEnabled()).toBe(true);

    // A changed value needs a new check.
    await section.getByLabel("Delete responses after (days)").fill("30");
    expect(await save.isDisabled()).toBe(true);
    await check.click();
    await section.getByText(/Saving this policy now deletes/).waitFor();
    await expectAccessible(page, "settings-retention");
    await save.click();
    await section.getByText("Retention saved.").waitFor();

    const ws = await page.evaluate(async () => (await fetch("/api/v1/workspace/")).json());
    expect(ws.retention).toEqual({
      delete_responses_after_days: 30,
      delete_audio_after_days: null,
      delete_audio_after_transcription: true,
      delete_after_delivery: false,
    });
  },
  TIMEOUT_MS,
);
