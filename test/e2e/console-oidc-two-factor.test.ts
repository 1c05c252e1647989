/**
 * @module test/e2e/console-oidc-two-factor.test
 * Single sign-on and two-factor together in Chromium (issue 28, "a browser test signs in through
 * the OIDC provider, enrols TOTP and signs in with it"): a real server from source configured with
 * a real OpenID Provider (`oidc-provider` on a loopback port). Ada signs in through the provider,
 * sets up two-factor in Settings (the setup key read from the page, codes computed with
 * `otpauth`), signs out, signs in through the provider again and lands on the console's code step
 * — the ticket not in the URL nor readable by scripts — where the code signs her in. The step
 * passes axe; screenshots at 390 and 1280 px go to test-results/console/.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Secret, TOTP } from "otpauth";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startTestProvider, type TestProvider } from "../helpers/oidc-provider.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { SCREENSHOT_DIR, expectAccessible } from "./console-walk.ts";
import { makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 180_000;

let dataDir: string;
let provider: TestProvider;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;
/** The console's origin as the server names itself (the redirect URI registered at the provider). */
let origin: string;
const redirectUris: string[] = [];

beforeAll(async () => {
  dataDir = await makeDataDir();
  provider = await startTestProvider(redirectUris);
  provider.users.set("ada@example.com", { email: "ada@example.com", email_verified: true, name: "Ada Lovelace", groups: [] });
  server = await startServer({
    dataDir,
    env: {
      EARSHOT_OIDC_ISSUER: provider.issuer,
      EARSHOT_OIDC_CLIENT_ID: provider.clientId,
      EARSHOT_OIDC_CLIENT_SECRET: provider.clientSecret,
      EARSHOT_OIDC_PROVIDER_NAME: "Test IdP",
      EARSHOT_OIDC_AUTO_JOIN: "true",
    },
  });
  // The flow cookie comes back only to the origin the server names itself (see console-oidc.test.ts).
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

/** From the sign-in page through the provider's login page as `email` (a fresh browser: no silent re-login). */
async function signInThroughProvider(email: string): Promise<void> {
  await browser.clearCookies();
  await page.goto(`${origin}/console/login/`);
  await page.getByRole("button", { name: "Sign in with Test IdP" }).click();
  await page.getByRole("heading", { name: "Test identity provider" }).waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** The code of the time step after now: never the step the enrolment used (the server refuses a replay). */
const nextStepCode = (secret: string) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + 30_000 });

test(
  "sign in through the provider, set up two-factor in Settings, sign out, sign in through the provider again with the code",
  async () => {
    await signInThroughProvider("ada@example.com");
    await page.getByRole("heading", { level: 1, name: "Links" }).waitFor();

    await page.goto(`${origin}/console/settings/`);
    const section = page.getByRole("region", { name: "Two-factor authentication" });
    await section.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const secret = await section.getByRole("textbox", { name: "Setup key" }).inputValue();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await section.getByLabel("Authentication code").fill(TOTP.generate({ secret: Secret.fromBase32(secret) }));
    await section.getByRole("button", { name: "Turn on" }).click();
    await section.getByRole("button", { name: "I have saved them" }).click();
    await section.getByText("10 of 10 recovery codes left.").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in with Test IdP" }).waitFor();

    await signInThroughProvider("ada@example.com");
    const code = page.getByLabel("Authentication code");
    await code.waitFor();
    await page.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
    const url = new URL(page.url());
    expect([url.pathname, url.search]).toEqual(["/console/login/", "?two_factor=1"]);
    // No session yet, and the ticket is out of reach of scripts (HttpOnly cookie).
    expect(await page.evaluate(async () => (await fetch("/api/v1/auth/session/")).status)).toBe(401);
    expect(await page.evaluate(() => document.cookie)).not.toContain("earshot_2fa");
    await expectAccessible(page, "single sign-on code step");
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `oidc-two-factor-step-${width}.png`), fullPage: true });
    }

    await code.fill("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("alert").waitFor();
    await code.fill(nextStepCode(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { level: 1, name: "Links" }).waitFor();
    const session = await page.evaluate(async () => (await fetch("/api/v1/auth/session/")).json());
    expect(session.user.email).toBe("ada@example.com");
  },
  TIMEOUT_MS,
);
