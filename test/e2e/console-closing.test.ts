/**
 * @module test/e2e/console-closing.test
 * The builder's closing and consent fields (issue 25) in Chromium against a real server (from
 * source): "Close at" (datetime-local, the operator's local time — Europe/Berlin here — → an ISO timestamp), "Response
 * limit" and "Consent text" with "Ask for consent" are saved, come back after a reload, reach the
 * API's `settings`, and emptying them removes them (null). A bad limit shows the API's error.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { apiGet, newLinkInBuilder, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";

const TIMEOUT_MS = 120_000;
const CONSENT = "I agree that my voice is recorded and kept for 30 days.";
const LOCAL_CLOSE = "2030-06-01T12:30";

let session: ConsoleOwner;
let page: Page;
let origin: string;

beforeAll(async () => {
  session = await openConsoleAsOwner({
    // A zone that is not UTC, so the local-time → UTC conversion of "Close at" shows.
    beforeSetup: async (p, browser) => {
      await (await browser.newCDPSession(p)).send("Emulation.setTimezoneOverride", { timezoneId: "Europe/Berlin" });
    },
  });
  ({ page, origin } = session);
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
});

test(
  "close at, response limit and consent are saved, reloaded, and removed when emptied",
  async () => {
    await newLinkInBuilder(page, origin, "Closing soon", "How was it?");
    await page.getByLabel("Close at").fill(LOCAL_CLOSE);
    await page.getByLabel("Response limit").fill("0");
    await page.getByLabel("Consent text").fill(CONSENT);
    await page.getByLabel("Ask for consent").selectOption({ label: "Before the first answer" });
    await page.getByRole("button", { name: "Save link" }).click();
    // 0 is below the API's minimum: its message shows under the field, which is marked invalid.
    await page.locator("#link-limit-error").waitFor();
    expect(await page.getByLabel("Response limit").getAttribute("aria-invalid")).toBe("true");

    await page.getByLabel("Response limit").fill("250");
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Link saved.").waitFor();
    const uuid = new URL(page.url()).pathname.split("/")[3]!;

    await page.reload();
    expect(await page.getByLabel("Close at").inputValue()).toBe(LOCAL_CLOSE);
    expect(await page.getByLabel("Response limit").inputValue()).toBe("250");
    expect(await page.getByLabel("Consent text").inputValue()).toBe(CONSENT);
    expect(await page.getByLabel("Ask for consent").inputValue()).toBe("start");

    const saved = (await apiGet(page, `links/${uuid}/`)).settings;
    // 12:30 in Berlin in June (UTC+2) is 10:30 UTC.
    expect(Date.parse(saved.close_at)).toBe(Date.parse("2030-06-01T10:30:00Z"));
    expect(saved.response_limit).toBe(250);
    expect(saved.consent).toEqual({ text: CONSENT, required_before: "start" });

    await page.getByLabel("Close at").fill("");
    await page.getByLabel("Response limit").fill("");
    await page.getByLabel("Consent text").fill("");
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Link saved.").waitFor();
    const cleared = (await apiGet(page, `links/${uuid}/`)).settings;
    expect(cleared).toMatchObject({ close_at: null, response_limit: null, consent: null });
    await page.reload();
    expect(await page.getByLabel("Close at").inputValue()).toBe("");
    expect(await page.getByLabel("Ask for consent").inputValue()).toBe("recording");
  },
  TIMEOUT_MS,
);
