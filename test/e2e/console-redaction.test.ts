/**
 * @module test/e2e/console-redaction.test
 * The builder's redaction toggle in Chromium against a real server from source (issue 25, DESIGN
 * §13): a new link has it off; "Mask personal data before it is stored" checked and "Save link"
 * sets `settings.redact_pii`, the reloaded builder shows it checked, and a typed answer sent to the
 * link afterwards is stored masked; unchecking turns it off again.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { apiGet, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";

const TOGGLE = /^Mask personal data before it is stored/;
let session: ConsoleOwner;
let page: Page;
let origin: string;

beforeAll(async () => {
  session = await openConsoleAsOwner({ browser: { bypassCSP: true } });
  ({ page, origin } = session);
}, 120_000);

afterAll(async () => {
  await session?.close();
});

test("the builder's 'Mask personal data' checkbox sets settings.redact_pii, and answers saved after are masked", async () => {
  await page.goto(`${origin}/console/links/new/`);
  await page.getByLabel("Name", { exact: true }).fill("Masked survey");
  const toggle = page.getByRole("checkbox", { name: TOGGLE });
  expect(await toggle.isChecked()).toBe(false);
  await page.getByRole("button", { name: "Add question" }).click();
  await page.locator("ol.q-list > li").nth(0).getByLabel("Prompt").fill("What went wrong?");
  await toggle.check();
  await page.getByRole("button", { name: "Save link" }).click();
  await page.getByText("Link saved.").waitFor();
  const uuid = /\/console\/links\/([0-9a-f-]{36})\//.exec(page.url())![1]!;
  let link = await apiGet(page, `links/${uuid}/`);
  expect(link.settings.redact_pii).toBe(true);
  await page.reload();
  await page.getByRole("heading", { level: 1, name: "Masked survey" }).waitFor();
  expect(await page.getByRole("checkbox", { name: TOGGLE }).isChecked()).toBe(true);

  // A respondent's typed answer to it is stored masked.
  const base = `${origin}/api/v1/intake/${new URL(link.public_url).pathname.split("/")[2]}/${link.slug}/sessions/`;
  const json = { "content-type": "application/json" };
  const session = await (await fetch(base, { method: "POST", headers: json, body: "{}" })).json();
  const put = await fetch(`${base}${session.session_id}/answers/${link.questions[0].uuid}/`, {
    method: "PUT",
    headers: json,
    body: JSON.stringify({ value: "Write to sam.jones@example.org please" }),
  });
  expect((await put.json()).text).toBe("Write to [email] please");

  await page.getByRole("checkbox", { name: TOGGLE }).uncheck();
  await page.getByRole("button", { name: "Save link" }).click();
  await page.getByText("Link saved.").waitFor();
  link = await apiGet(page, `links/${uuid}/`);
  expect(link.settings.redact_pii).toBe(false);
}, 180_000);
