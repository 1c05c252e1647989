/**
 * @module test/e2e/console-invitations.test
 * The console's invitations screen (issue 25; DESIGN §13) in Chromium against a real server:
 * the builder's "Only personal invitations can answer" (settings.access), creating invitations from a CSV of hidden-field values, the new URLs to copy, the CSV download
 * (hidden columns + url), the list with states, revoking one — whose URL then shows the
 * "withdrawn" page — and the screen passing axe.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import type { BrowserContext, Page } from "playwright-core";
import { apiWrite as apiWriteIn, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";
import { expectAccessible } from "./console-walk.ts";

const TIMEOUT_MS = 120_000;

let session: ConsoleOwner;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  session = await openConsoleAsOwner({ browser: { microphone: false, bypassCSP: true }, viewport: { width: 1280, height: 900 } });
  ({ browser, page } = session);
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
});

/** A write with the page's session; the reply's body. */
async function apiWrite(method: string, apiPath: string, body?: unknown): Promise<any> {
  return (await apiWriteIn(page, method, apiPath, body)).body;
}

test(
  "create invitations from a CSV, copy and download the URLs, see states, revoke one",
  async () => {
    const link = await apiWrite("POST", "links/", { name: "Store visits", questions: [{ prompt: "How was your visit?", type: "text" }] });
    // The builder sets the access: only personal invitations.
    await page.goto(`${new URL(page.url()).origin}/console/links/${link.uuid}/`);
    const only = page.getByLabel("Only personal invitations can answer");
    expect(await only.isChecked()).toBe(false);
    await only.check();
    await page.getByRole("button", { name: "Save link" }).click();
    await page.waitForFunction(async (u) => (await (await fetch(`/api/v1/links/${u}/`)).json()).settings.access === "invitation", link.uuid);
    await page.getByRole("link", { name: "Invitations" }).click();
    await page.getByRole("heading", { level: 1, name: "Invitations: Store visits" }).waitFor();
    await page.getByText("Only personal invitations can answer this link.").waitFor();

    await page.getByLabel("Hidden values (CSV)").fill('order_id,store\nA-1,north\nA-2,"south, east"\n');
    await page.getByRole("button", { name: "Create invitations" }).click();
    const urls = (await page.getByRole("textbox", { name: "Invitation URLs" }).inputValue()).split("\n");
    expect(urls.length).toBe(2);
    for (const url of urls) expect(url).toStartWith(`${link.public_url}?inv=`);

    const downloading = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download CSV", exact: true }).click();
    const file = await (await downloading).path();
    expect(parse(await readFile(file!, "utf8"), { columns: true })).toEqual([
      { order_id: "A-1", store: "north", url: urls[0] },
      { order_id: "A-2", store: "south, east", url: urls[1] },
    ]);

    const table = page.getByRole("region", { name: "Invitations" });
    await table.getByText("order_id=A-2, store=south, east").waitFor();
    expect(await table.getByRole("cell", { name: "unused", exact: true }).count()).toBe(2);
    await expectAccessible(page, "invitations screen");

    await page.getByRole("button", { name: "Revoke invitation 1" }).click();
    await page.getByRole("dialog", { name: "Revoke this invitation?" }).getByRole("button", { name: "Revoke" }).click();
    await table.getByRole("cell", { name: "revoked", exact: true }).waitFor();
    await page.getByLabel("State").selectOption("revoked");
    // Filtered: only the revoked one (header row + 1) remains.
    await page.waitForFunction(() => document.querySelectorAll("[aria-label=Invitations] tbody tr").length === 1);
    expect(await table.getByText("order_id=A-1, store=north").count()).toBe(1);
    const respondent = await browser.newPage();
    await respondent.goto(urls[0]!);
    await respondent.getByText("This personal link is no longer valid.").waitFor();
  },
  TIMEOUT_MS,
);
