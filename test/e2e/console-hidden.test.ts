/**
 * @module test/e2e/console-hidden.test
 * Hidden fields in the operator console (issue 25) in Chromium against a real server (from
 * source): the builder's "Hidden fields" input saves `settings.hidden_fields` (and shows the API's
 * error for a bad name), a respondent opens the link's URL with `?order_id=…`, the response page
 * shows the hidden value, and the link's inbox shows them as a column and filters by one.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../helpers/process.ts";
import { apiGet, apiWrite, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";

const TIMEOUT_MS = 120_000;
const PROMPT = "How was your order?";
const PRO_PROMPT = "Anything for pro customers?";

let session: ConsoleOwner;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;
let origin: string;

beforeAll(async () => {
  session = await openConsoleAsOwner({ browser: { microphone: false, bypassCSP: true } });
  ({ server, browser, page, origin } = session);
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
});

test(
  "the builder edits hidden fields; the response page shows their values",
  async () => {
    const created = await apiWrite(page, "POST", "links/", {
      name: "Orders",
      questions: [
        { prompt: PROMPT, type: "text", required: true },
        { prompt: PRO_PROMPT, type: "text" },
      ],
    });
    expect(created.status).toBe(201);
    await page.goto(`${origin}/console/links/${created.body.uuid}/`);
    const input = page.getByLabel("Hidden fields");
    expect(await input.inputValue()).toBe("");

    await input.fill("Order-ID");
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Use snake_case starting with a letter.").first().waitFor();
    expect((await apiGet(page, `links/${created.body.uuid}/`)).settings.hidden_fields).toEqual([]);

    await input.fill("order_id, plan");
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Link saved.").waitFor();
    expect((await apiGet(page, `links/${created.body.uuid}/`)).settings.hidden_fields).toEqual(["order_id", "plan"]);
    expect(await page.getByLabel("Hidden fields").inputValue()).toBe("order_id, plan");

    // The second question's condition tests the hidden field `plan`; it survives a reload and another save.
    const second = page.locator("ol.q-list > li").nth(1);
    if ((await second.locator(".q-toggle").getAttribute("aria-expanded")) === "false") await second.locator(".q-toggle").click();
    await second.getByLabel("Show this question").selectOption({ label: "Only if hidden field plan" });
    await second.getByLabel("Operator").selectOption("equals");
    await second.getByLabel("Value").fill("pro");
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Link saved.").waitFor();
    const condition = { show_if: "field_value", field: "plan", operator: "equals", value: "pro" };
    expect((await apiGet(page, `links/${created.body.uuid}/`)).questions[1].condition).toEqual(condition);
    await page.reload();
    await page.getByLabel("Hidden fields").waitFor();
    await page.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Link saved.").waitFor();
    expect((await apiGet(page, `links/${created.body.uuid}/`)).questions[1].condition).toEqual(condition);

    const respondent = await browser.newPage();
    await respondent.goto(`${created.body.public_url}?order_id=A-1001`);
    await respondent.getByLabel(PROMPT).fill("On time");
    await respondent.getByRole("button", { name: "Submit" }).click();
    await respondent.getByText("Thanks for your response!").waitFor();
    await respondent.close();

    const [response] = (await apiGet(page, `links/${created.body.uuid}/responses/`)).results;
    expect(response.hidden).toEqual({ order_id: "A-1001" });
    await page.goto(`${origin}/console/responses/${response.uuid}/`);
    const fact = page.locator("dl.facts > div", { has: page.locator("dt", { hasText: "order_id" }) });
    expect(await fact.locator("dd").textContent()).toBe("A-1001");

    // A second response through the intake API, then the inbox's column and filter.
    // (This browser remembers its submitted session for the link, so the second respondent uses the API.)
    const wsSlug = new URL(created.body.public_url).pathname.split("/")[2];
    const base = `${server.baseUrl}/api/v1/intake/${wsSlug}/${created.body.slug}/sessions/`;
    const post = (url: string, method: string, body: unknown) =>
      fetch(url, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(async (r) => ({
        status: r.status,
        json: (await r.json()) as any,
      }));
    const session = await post(base, "POST", { hidden: { order_id: "B-2002", plan: "pro" } });
    expect(session.status).toBe(201);
    const sid = session.json.session_id;
    expect((await post(`${base}${sid}/answers/${created.body.questions[0].uuid}/`, "PUT", { value: "Late" })).status).toBe(200);
    expect((await post(`${base}${sid}/submit/`, "POST", {})).status).toBe(200);
    await page.goto(`${origin}/console/links/${created.body.uuid}/responses/`);
    await page.getByRole("status").getByText("2 responses").waitFor();
    const column = page.getByRole("table", { name: "Responses" }).locator("tbody td.mono");
    expect((await column.allTextContents()).sort()).toEqual(["order_id: A-1001", "order_id: B-2002, plan: pro"]);
    await page.getByLabel("Hidden field").selectOption("plan");
    await page.getByLabel("Hidden value").fill("pro");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByRole("status").getByText("1 response matches the filter").waitFor();
    expect(await column.allTextContents()).toEqual(["order_id: B-2002, plan: pro"]);
    expect(new URL(page.url()).searchParams.get("hidden_field")).toBe("plan");
  },
  TIMEOUT_MS,
);
