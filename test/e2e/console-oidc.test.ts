/**
 * @module test/e2e/console-oidc.test
 * Single sign-on in Chromium (issue 28; DESIGN §15): a real server configured with a real OpenID
 * Provider (`oidc-provider` on a loopback port). "Sign in with Test IdP" on the sign-in page leads
 * to the provider's login page; after it the console opens signed in. A refusal (an unverified
 * email) comes back to the sign-in page as an explained alert. The page passes axe; screenshots
 * at 390 and 1280 px go to test-results/console/.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startTestProvider, type TestProvider } from "../helpers/oidc-provider.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { SCREENSHOT_DIR, expectAccessible } from "./console-walk.ts";
import { makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const WIDTHS = [390, 1280] as const;

let dataDir: string;
let provider: TestProvider;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;
/** The console's origin as EARSHOT_PUBLIC_URL names it (the redirect URI registered at the provider). */
let origin: string;
const redirectUris: string[] = [];

async function shoot(name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `oidc-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  dataDir = await makeDataDir();
  provider = await startTestProvider(redirectUris);
  provider.users.set("ada@example.com", { email: "ada@example.com", email_verified: true, name: "Ada Lovelace", groups: ["earshot-admins"] });
  provider.users.set("una@example.com", { email: "una@example.com", email_verified: false, name: "Una", groups: ["earshot-admins"] });
  server = await startServer({
    dataDir,
    env: {
      EARSHOT_OIDC_ISSUER: provider.issuer,
      EARSHOT_OIDC_CLIENT_ID: provider.clientId,
      EARSHOT_OIDC_CLIENT_SECRET: provider.clientSecret,
      EARSHOT_OIDC_PROVIDER_NAME: "Test IdP",
      EARSHOT_OIDC_ROLE_CLAIM: "groups",
      EARSHOT_OIDC_ROLE_MAP: "earshot-admins=admin,earshot=member",
      EARSHOT_OIDC_AUTO_JOIN: "true",
    },
  });
  // With no EARSHOT_PUBLIC_URL the server names itself http://localhost:<port>: the browser must
  // use that origin, or the flow cookie would not come back with the provider's redirect.
  origin = server.baseUrl.replace("127.0.0.1", "localhost");
  redirectUris.push(`${origin}/api/v1/auth/oidc/callback/`);
  // bypassCSP: axe-core is injected as an inline script (the pages keep their CSP header).
  browser = await launchBrowser({ microphone: false, bypassCSP: true });
  page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await provider?.close();
  await removeDir(dataDir);
});

/** From the sign-in page through the provider's login page as `email`. */
async function signInThroughProvider(email: string): Promise<void> {
  // A new browser for the provider too: it would otherwise sign the last person in again silently.
  await browser.clearCookies();
  await page.goto(`${origin}/console/login/`);
  await page.getByRole("button", { name: "Sign in with Test IdP" }).click();
  await page.getByRole("heading", { name: "Test identity provider" }).waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test(
  "a refusal comes back to the sign-in page explained",
  async () => {
    await signInThroughProvider("una@example.com");
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("has not verified your email address");
    expect(new URL(page.url()).pathname).toBe("/console/login/");
    await expectAccessible(page, "sign-in page with a single sign-on error");
    await shoot("refused");
  },
  TIMEOUT_MS,
);

test(
  '"Sign in with Test IdP" → the provider\'s login → the console, signed in with the mapped role',
  async () => {
    await page.goto(`${origin}/console/login/`);
    await page.getByRole("button", { name: "Sign in with Test IdP" }).waitFor();
    await expectAccessible(page, "sign-in page with single sign-on");
    await shoot("sign-in");
    await signInThroughProvider("ada@example.com");
    await page.getByRole("navigation", { name: "Console" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/links/");
    const session = await page.evaluate(async () => (await fetch("/api/v1/auth/session/")).json());
    expect(session.user.email).toBe("ada@example.com");
    expect(session.role).toBe("admin");
    await shoot("signed-in");
  },
  TIMEOUT_MS,
);
