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
import type { Page } from "playwright-core";
import { startOidcConsole, type OidcConsole } from "../helpers/oidc-console.ts";
import { SCREENSHOT_DIR, expectAccessible } from "./console-walk.ts";

const TIMEOUT_MS = 180_000;

let oidc: OidcConsole;
let page: Page;
/** The console's origin as the server names itself (see {@link OidcConsole.origin}). */
let origin: string;

beforeAll(async () => {
  oidc = await startOidcConsole({ users: [{ email: "ada@example.com", email_verified: true, name: "Ada Lovelace", groups: [] }] });
  ({ page, origin } = oidc);
}, TIMEOUT_MS);

afterAll(async () => {
  await oidc?.close();
});

/** The code of the time step after now: never the step the enrolment used (the server refuses a replay). */
const nextStepCode = (secret: string) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + 30_000 });

test(
  "sign in through the provider, set up two-factor in Settings, sign out, sign in through the provider again with the code",
  async () => {
    await oidc.signInThroughProvider("ada@example.com");
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

    await oidc.signInThroughProvider("ada@example.com");
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
