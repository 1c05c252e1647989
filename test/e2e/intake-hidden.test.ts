/**
 * @module test/e2e/intake-hidden.test
 * Hidden fields on the intake page (issue 25; docs/intake.md "Hidden fields") against a real
 * server (from source) in Chromium: the respondent opens `/i/<slug>?order_id=123&plan=pro&utm=x`,
 * a question conditioned on the hidden `plan` is shown, they answer and submit, and a real HTTPS
 * webhook receiver gets `hidden.order_id` in `response.submitted` (the undeclared `utm` left out).
 * `?preview=1` with the same query still records nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrowserContext } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from "../helpers/https-receiver.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, listResponses, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const FIRST = "How was your order?";
const PRO_ONLY = "What would you tell another pro customer?";
const BASIC_ONLY = "Would you consider upgrading?";

let dataDir: string;
let certs: TestCertificates;
let receiver: HttpsReceiver;
let server: RunningServer;
let apiKey: string;
let link: { uuid: string; public_url: string };
let browser: BrowserContext;

beforeAll(async () => {
  dataDir = await makeDataDir();
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver({ certs });
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir, env: { EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1", EARSHOT_WEBHOOK_CA_FILE: certs.caFile } });
  link = await api(server, apiKey, "POST", "links/", {
    name: "Order feedback",
    settings: { hidden_fields: ["order_id", "plan"], thankYouMessage: "Thanks, order noted." },
    questions: [
      { prompt: FIRST, type: "text", required: true },
      { prompt: PRO_ONLY, type: "text", required: true, condition: { show_if: "field_value", field: "plan", operator: "equals", value: "pro" } },
      { prompt: BASIC_ONLY, type: "yes_no", condition: { show_if: "field_value", field: "plan", operator: "equals", value: "basic" } },
    ],
    on_finished: { webhook_url: receiver.url, webhook_secret: "hidden-secret" },
  });
  browser = await launchBrowser({ microphone: false });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
  if (certs) await removeDir(certs.dir);
  if (dataDir) await removeDir(dataDir);
});

test(
  "the page sends the URL's hidden values, a condition on one shows a question, the webhook gets hidden.order_id",
  async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (err) => pageErrors.push(err.message));

    // Preview first: the same query, nothing recorded.
    await page.goto(`${link.public_url}?preview=1&order_id=123&plan=pro`);
    await page.getByLabel(FIRST).fill("Preview only");
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByLabel(PRO_ONLY).waitFor();
    expect(await listResponses(server, apiKey, link.uuid)).toEqual([]);

    await page.goto(`${link.public_url}?order_id=123&plan=pro&utm=x`);
    await page.getByLabel(FIRST).fill("Arrived on time");
    await page.getByRole("button", { name: "Next" }).click();
    // plan=pro: the pro question shows, the basic one never does
    await page.getByLabel(PRO_ONLY).fill("Worth it");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByText("Thanks, order noted.").waitFor();
    expect(await page.getByText(BASIC_ONLY).count()).toBe(0);

    await receiver.waitFor((rs) => rs.length >= 1, 60_000);
    const event = JSON.parse(receiver.requests[0]!.body);
    expect(event.type).toBe("response.submitted");
    expect(event.data.response.hidden).toEqual({ order_id: "123", plan: "pro" });
    expect(event.data.response.answers.map((a: any) => a.question_text)).toEqual([FIRST, PRO_ONLY]);
    const [stored] = await listResponses(server, apiKey, link.uuid);
    expect(stored.hidden).toEqual({ order_id: "123", plan: "pro" });
    expect(pageErrors).toEqual([]);
  },
  TIMEOUT_MS,
);
