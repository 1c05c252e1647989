/**
 * @module test/e2e/intake-invitation.test
 * A personal, single-use link (issue 25; DESIGN §13) in Chromium against a real server: the
 * respondent opens the invitation's URL on an invitation-only link, answers, submits; the response
 * carries the invitation; opening the same URL again shows the "already used" page, and the
 * link's plain URL shows the "invitation needed" page.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrowserContext } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const PROMPT = "How was your visit to our store?";

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let browser: BrowserContext;

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  browser = await launchBrowser({ microphone: false });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

test(
  "a respondent answers through a personal link; reusing it shows the already-used page",
  async () => {
    const link = await api(server, apiKey, "POST", "links/", {
      name: "Store visit",
      settings: { access: "invitation", thankYouMessage: "Thanks, noted!" },
      questions: [{ prompt: PROMPT, type: "text", required: true }],
    });
    const created = await api(server, apiKey, "POST", `links/${link.uuid}/invitations/`, { hidden: [{ order_id: "A-1001" }] });
    const invitation = created.results[0];

    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(invitation.url);
    await page.getByLabel(PROMPT).fill("Friendly staff, long queue.");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByText("Thanks, noted!").waitFor();
    // One response per invitation: no "start again" on a personal link.
    expect(await page.getByRole("button", { name: /again/i }).count()).toBe(0);

    const listed = await api(server, apiKey, "GET", `links/${link.uuid}/invitations/`);
    expect(listed.results[0]).toMatchObject({ uuid: invitation.uuid, state: "submitted", hidden: { order_id: "A-1001" } });
    const response = await api(server, apiKey, "GET", `responses/${listed.results[0].response_uuid}/`);
    expect(response.status).toBe("completed");
    expect(response.answers[0].value).toBe("Friendly staff, long queue.");

    const again = await browser.newPage();
    await again.goto(invitation.url);
    await again.getByText("This personal link was already used to send a response.").waitFor();
    expect(await again.getByLabel(PROMPT).count()).toBe(0);
    await again.goto(link.public_url);
    await again.getByText("This form is by personal invitation.").waitFor();
    expect(errors).toEqual([]);
  },
  TIMEOUT_MS,
);
