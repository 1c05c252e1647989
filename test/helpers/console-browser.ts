/**
 * @module test/helpers/console-browser
 * The set-up most console browser tests share, in one place: a fresh data directory, a server
 * from source (or a binary), headless Chromium, and the owner created through the setup URL's
 * page ("Name", "Email", "Password", "Create account", then the "Console" navigation); plus the
 * page-session API calls the tests make (`fetch` inside the page, so the session cookie and the
 * CSRF token are the console's own). Tests that are about the setup page itself do not use it.
 */
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "./browser.ts";
import { startServer, type RunningServer } from "./process.ts";
import { makeDataDir, removeDir } from "../e2e/voice-flow.ts";

/** Waits for the setup URL the first start prints (DESIGN §2). */
export async function setupUrlOf(server: RunningServer): Promise<string> {
  const re = /(https?:\/\/\S+\/console\/setup\/\?token=[^\s'"]+)/;
  const deadline = Date.now() + 10_000;
  while (!re.test(server.output())) {
    if (Date.now() > deadline) throw new Error(`no setup URL in the server's output:\n${server.output()}`);
    await Bun.sleep(100);
  }
  return re.exec(server.output())![1]!;
}

/** The owner every console test creates. */
export const OWNER = { name: "Ada Lovelace", email: "ada@example.com", password: "correct horse battery" };

/**
 * Fills the setup page at `setupUrl` with `owner` and waits for the console's navigation.
 * @throws when a field, the button or the navigation does not show (playwright's timeout)
 */
export async function createOwner(page: Page, setupUrl: string, owner: { name: string; email: string; password: string } = OWNER): Promise<void> {
  await page.goto(setupUrl);
  await page.getByLabel("Name").fill(owner.name);
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("navigation", { name: "Console" }).waitFor();
}

export type ConsoleOwner = {
  dataDir: string;
  server: RunningServer;
  browser: BrowserContext;
  /** Signed in as {@link OWNER}, on the console's first page. */
  page: Page;
  /** The console's origin as the setup URL names it (the session cookie belongs to it). */
  origin: string;
  /** Closes the browser, stops the server, removes the data directory. */
  close: () => Promise<void>;
};

/**
 * Starts a server on a fresh data directory, launches Chromium and creates the owner.
 * @param opts.env, opts.bin passed to `startServer` (from source when `bin` is omitted)
 * @param opts.browser passed to `launchBrowser` (default `{ microphone: false }`)
 * @param opts.viewport the page's size, set before the setup page opens
 * @param opts.beforeSetup runs on the new page before the setup page opens (e.g. a time zone)
 * @throws what a step throws; what was started by then is closed first
 */
export async function openConsoleAsOwner(
  opts: {
    env?: Record<string, string>;
    bin?: string[];
    browser?: Parameters<typeof launchBrowser>[0];
    viewport?: { width: number; height: number };
    beforeSetup?: (page: Page, browser: BrowserContext) => Promise<void>;
  } = {},
): Promise<ConsoleOwner> {
  const dataDir = await makeDataDir();
  let server: RunningServer | undefined;
  let browser: BrowserContext | undefined;
  const close = async () => {
    await browser?.close();
    await server?.stop();
    await removeDir(dataDir);
  };
  try {
    server = await startServer({ dataDir, ...(opts.env ? { env: opts.env } : {}), ...(opts.bin ? { bin: opts.bin } : {}) });
    const setupUrl = await setupUrlOf(server);
    browser = await launchBrowser(opts.browser ?? { microphone: false });
    const page = await browser.newPage();
    if (opts.viewport) await page.setViewportSize(opts.viewport);
    if (opts.beforeSetup) await opts.beforeSetup(page, browser);
    await createOwner(page, setupUrl);
    return { dataDir, server, browser, page, origin: new URL(setupUrl).origin, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** `GET /api/v1/<apiPath>` with the page's session cookie; the parsed JSON body. */
export function apiGet(page: Page, apiPath: string): Promise<any> {
  return page.evaluate(async (p) => (await fetch(`/api/v1/${p}`)).json(), apiPath);
}

/**
 * A write to `/api/v1/<apiPath>` with the page's session (cookie + CSRF token); `body` as JSON
 * (none when undefined).
 * @returns the status and the parsed body (null when it is not JSON)
 */
export function apiWrite(page: Page, method: string, apiPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ method, apiPath, body }) => {
      const s = await (await fetch("/api/v1/auth/session/")).json();
      const res = await fetch(`/api/v1/${apiPath}`, {
        method,
        headers: { "content-type": "application/json", "x-csrf-token": s.csrf_token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    { method, apiPath, body },
  );
}

/**
 * Opens the builder at `${origin}/console/links/new/`, names the link `name` and adds one
 * question whose prompt is `prompt` (not saved).
 */
export async function newLinkInBuilder(page: Page, origin: string, name: string, prompt: string): Promise<void> {
  await page.goto(`${origin}/console/links/new/`);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Add question" }).click();
  await page.getByLabel("Prompt").fill(prompt);
}
