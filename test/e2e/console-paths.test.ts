/**
 * @module test/e2e/console-paths.test
 * Issue 22 (Low): the console's route and query parameters never steer its API requests. A real
 * `earshot serve`, real Chromium signed in as the owner; each console address below carries a
 * parameter that decodes to a path (`../../tokens/<uuid>`, `..`) where a UUID or token belongs.
 * The page must show that there is nothing there, and the browser must send no API request outside
 * the one the page means — in particular none to `tokens/<uuid>/` (before the fix,
 * `/console/webhooks/..%2F..%2F..%2Ftokens%2F<uuid>/` made the console `GET /api/v1/tokens/<uuid>/`).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { apiWrite, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";

let session: ConsoleOwner;
let browser: BrowserContext;
let page: Page;
let tokenUuid: string;
/** The console's origin as the setup URL names it (the session cookie belongs to it). */
let origin: string;
const requests: string[] = [];

beforeAll(async () => {
  session = await openConsoleAsOwner({ env: { EARSHOT_JOBS_PAUSED: "1" } });
  ({ browser, page, origin } = session);
  const created = (await apiWrite(page, "POST", "tokens/", { name: "Target", scopes: ["links:read"] })).body;
  tokenUuid = created.uuid;
  expect(tokenUuid).toMatch(/^[0-9a-f-]{36}$/);
  browser.on("request", (r) => requests.push(new URL(r.url()).pathname));
}, 60_000);

afterAll(async () => {
  await session?.close();
});

/** The API paths the page requested while it opened `address` and settled (its main heading shown, the network quiet). */
async function apiRequestsOf(address: string): Promise<string[]> {
  requests.length = 0;
  await page.goto(origin + address);
  await page.locator("main h1, section h1").first().waitFor({ timeout: 10_000 });
  await page.waitForLoadState("networkidle");
  return requests.filter((p) => p.startsWith("/api/"));
}

/** Whether the page says there is nothing at its address: the Page not found heading, or the API client's own refusal. */
async function saysNotFound(): Promise<boolean> {
  const heading = page.getByRole("heading", { name: "Page not found" });
  const note = page.getByText("This page does not exist").first();
  await heading
    .or(note)
    .first()
    .waitFor({ timeout: 10_000 })
    .catch(() => {});
  return (await heading.isVisible()) || (await note.isVisible());
}
const traversal = () => `..%2F..%2F..%2Ftokens%2F${tokenUuid}`;

test.each([
  ["a webhook", () => `/console/webhooks/${traversal()}/`],
  ["a response", () => `/console/responses/${traversal()}/`],
  ["a link in the builder", () => `/console/links/${traversal()}/`],
  ["a link's dashboard", () => `/console/links/${traversal()}/dashboard/`],
  ["a link's responses", () => `/console/links/${traversal()}/responses/`],
  ["a webhook named %2E%2E%2F", () => "/console/webhooks/%2E%2E%2F/"],
  ["a response that is a plain word", () => "/console/responses/not-a-uuid/"],
])(
  "a route parameter that is not a UUID (%s) shows Page not found and requests nothing with it",
  async (_what, address) => {
    const paths = await apiRequestsOf(address());
    expect(paths.filter((p) => p.includes("tokens") || p.includes(".."))).toEqual([]);
    // Only the frame's own requests (the session), none built from the parameter.
    expect(paths.filter((p) => !p.startsWith("/api/v1/auth/") && p !== "/api/v1/workspace/")).toEqual([]);
    expect(await saysNotFound()).toBe(true);
  },
  30_000,
);

test("a link filter that is not a UUID is refused in the inbox, not sent as a path", async () => {
  const paths = await apiRequestsOf(`/console/responses/?link=${traversal()}`);
  expect(paths.filter((p) => p.includes("tokens") || p.includes(".."))).toEqual([]);
  expect(await saysNotFound()).toBe(true);
}, 30_000);

test("an invitation token that is a path is refused before it reaches the API", async () => {
  await browser.clearCookies(); // signed out: the invitation page
  for (const token of ["..", `../tokens/${tokenUuid}`]) {
    requests.length = 0;
    await page.goto(`${origin}/console/invite/?token=${encodeURIComponent(token)}`);
    await page.getByText("This invite is unknown, already used or expired.").waitFor({ timeout: 10_000 });
    await page.waitForLoadState("networkidle");
    expect(requests.filter((p) => p.startsWith("/api/v1/auth/invites") || p === "/api/v1/auth/" || p.includes("tokens"))).toEqual([]);
  }
}, 30_000);
