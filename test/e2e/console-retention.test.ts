/**
 * @module test/e2e/console-retention.test
 * Settings › Retention in Chromium against a real server (issue 25; docs/privacy.md "Retention"):
 * "Save retention" stays disabled until "Check what it deletes" showed the dry run's counts of the
 * values in the form; changing a value asks for a new check; saving stores the policy
 * (`GET workspace/`). The section passes axe.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";
import { expectAccessible } from "./console-walk.ts";

const TIMEOUT_MS = 120_000;

let session: ConsoleOwner;
let page: Page;

beforeAll(async () => {
  session = await openConsoleAsOwner({ browser: { microphone: false, bypassCSP: true } });
  ({ page } = session);
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
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
