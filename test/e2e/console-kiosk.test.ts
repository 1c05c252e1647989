/**
 * @module test/e2e/console-kiosk.test
 * The builder's kiosk fields (issue 29, web/console/pages/link-kiosk.tsx) in Chromium against a
 * real server (from source): "Kiosk mode" with "Idle timeout (seconds)" and "Exit PIN" is saved,
 * comes back after a reload (the PIN only as "A PIN is set"), reaches the API's `settings.kiosk`,
 * an out-of-range timeout shows the API's error under its field, an empty PIN keeps the stored
 * one, "Remove the exit PIN" removes it, and unchecking turns kiosk mode off. With
 * `EARSHOT_SHOTS_DIR` set, the fields are saved as a screenshot there.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import path from "node:path";
import type { Page } from "playwright-core";
import { apiGet, newLinkInBuilder, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";

const TIMEOUT_MS = 120_000;

let session: ConsoleOwner;
let page: Page;
let origin: string;

beforeAll(async () => {
  session = await openConsoleAsOwner();
  ({ page, origin } = session);
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
});

test(
  "kiosk mode, idle timeout and exit PIN are saved, reloaded without the PIN, kept, removed and turned off",
  async () => {
    await newLinkInBuilder(page, origin, "Front desk", "How was your visit?");
    expect(await page.getByLabel("Idle timeout (seconds)").count()).toBe(0);
    await page.getByLabel("Kiosk mode").check();
    await page.getByLabel("Idle timeout (seconds)").fill("5");
    await page.getByLabel("Exit PIN", { exact: true }).fill("4711");
    await page.getByRole("button", { name: "Save link" }).click();
    // 5 s is below the API's minimum: its message shows under the field, which is marked invalid.
    await page.locator("#link-kiosk-idle-error").waitFor();
    expect(await page.getByLabel("Idle timeout (seconds)").getAttribute("aria-invalid")).toBe("true");

    await page.getByLabel("Idle timeout (seconds)").fill("45");
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Link saved.").waitFor();
    const uuid = new URL(page.url()).pathname.split("/")[3]!;
    expect((await apiGet(page, `links/${uuid}/`)).settings.kiosk).toEqual({ enabled: true, idle_timeout_s: 45, has_exit_pin: true });

    await page.reload();
    expect(await page.getByLabel("Kiosk mode").isChecked()).toBe(true);
    expect(await page.getByLabel("Idle timeout (seconds)").inputValue()).toBe("45");
    expect(await page.getByLabel("Exit PIN", { exact: true }).inputValue()).toBe("");
    await page.getByText("A PIN is set.").waitFor();
    expect(await page.content()).not.toContain("4711");
    // With EARSHOT_SHOTS_DIR set: the kiosk fields as an operator sees them, for a person to look at.
    const shots = process.env.EARSHOT_SHOTS_DIR;
    if (shots) await page.getByRole("group", { name: "Kiosk" }).screenshot({ path: path.join(shots, "console-kiosk-fields.png") });

    // Saving with the PIN field empty keeps the PIN.
    await page.getByLabel("Idle timeout (seconds)").fill("60");
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Link saved.").waitFor();
    expect((await apiGet(page, `links/${uuid}/`)).settings.kiosk).toEqual({ enabled: true, idle_timeout_s: 60, has_exit_pin: true });

    await page.getByLabel("Remove the exit PIN").check();
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Link saved.").waitFor();
    expect((await apiGet(page, `links/${uuid}/`)).settings.kiosk).toEqual({ enabled: true, idle_timeout_s: 60, has_exit_pin: false });

    await page.getByLabel("Kiosk mode").uncheck();
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Link saved.").waitFor();
    expect((await apiGet(page, `links/${uuid}/`)).settings.kiosk).toEqual({ enabled: false, idle_timeout_s: 60, has_exit_pin: false });
  },
  TIMEOUT_MS,
);
