/**
 * @module test/e2e/console-two-factor.test
 * Two-factor authentication in the console (issue 28; docs/console.md "Two-factor authentication")
 * in Chromium against a real server from source: the owner sets it up in Settings (the setup key is
 * read from the page and the code computed here with `otpauth`), sees the recovery codes once,
 * requires it of the workspace with the switch, signs out, and signs in again with the
 * "Authentication code" step. Screenshots at 390 and 1280 px (light and dark) under
 * test-results/console/, each checked with axe and for sideways scrolling.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Secret, TOTP } from "otpauth";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { OWNER, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";
import { SCREENSHOT_DIR, shootAll } from "./console-walk.ts";

const TIMEOUT_MS = 180_000;
const EMAIL = OWNER.email;
const PASSWORD = OWNER.password;

let session: ConsoleOwner;
let page: Page;

beforeAll(async () => {
  // CSP bypassed only so axe can be injected for the accessibility checks.
  session = await openConsoleAsOwner({ browser: { microphone: false, bypassCSP: true }, viewport: { width: 1280, height: 900 } });
  ({ page } = session);
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
});

/** Full pages in four variants (shootAll: axe, no sideways scrolling), plus the one section close up at 390 and 1280 px. */
async function shoot(name: string, part: Locator): Promise<void> {
  await shootAll(page, name, true);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await part.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-part-${width}.png`) });
  }
}

/** The code of the time step after now: never the step the previous code used (the server refuses a replay). */
const nextStepCode = (secret: string) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + 30_000 });

test(
  "set up two-factor in Settings, require it for the workspace, sign out, sign in with an authentication code",
  async () => {
    const origin = new URL(page.url()).origin;
    await page.goto(`${origin}/console/settings/`);
    const section = page.getByRole("region", { name: "Two-factor authentication" });
    await section.getByRole("button", { name: "Set up two-factor authentication" }).click();
    await section.getByRole("img", { name: "QR code for your authentication app" }).waitFor();
    const secret = await section.getByRole("textbox", { name: "Setup key" }).inputValue();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await section.getByRole("img", { name: "QR code for your authentication app" }).scrollIntoViewIfNeeded();
    await shoot("two-factor-enrol", section);

    await section.getByLabel("Authentication code").fill(TOTP.generate({ secret: Secret.fromBase32(secret) }));
    await section.getByRole("button", { name: "Turn on" }).click();
    const codes = section.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    expect(await codes.first().textContent()).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/);
    await section.getByRole("button", { name: "Download" }).waitFor();
    await shoot("two-factor-recovery-codes", section);
    await section.getByRole("button", { name: "I have saved them" }).click();
    await section.getByText("10 of 10 recovery codes left.").waitFor();

    // The workspace's requirement: the switch (the owner has two-factor on now, so it may).
    const require = page.getByRole("switch", { name: "Require two-factor authentication for every member" });
    await require.check();
    await page.getByText("Every member now needs two-factor authentication.").waitFor();
    expect(await require.isChecked()).toBe(true);
    await page.getByRole("region", { name: "Sign-in security" }).scrollIntoViewIfNeeded();
    await shoot("two-factor-settings", page.getByRole("region", { name: "Sign-in security" }));

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    const code = page.getByLabel("Authentication code");
    await code.waitFor();
    await page.getByRole("button", { name: "Use a recovery code" }).waitFor();
    await shootAll(page, "two-factor-sign-in", true);
    await code.fill(nextStepCode(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("navigation", { name: "Console" }).waitFor();
    await page.getByRole("heading", { level: 1, name: "Links" }).waitFor();
  },
  TIMEOUT_MS,
);

test(
  "a member invited to the workspace that requires two-factor is taken to set it up, and reaches Links once it is on",
  async () => {
    const origin = new URL(page.url()).origin;
    const invite = await page.evaluate(async () => {
      const s = await (await fetch("/api/v1/auth/session/")).json();
      const res = await fetch("/api/v1/invites/", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": s.csrf_token },
        body: JSON.stringify({ email: "grace@example.com", role: "member" }),
      });
      return res.json();
    });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    const url = new URL(invite.url);
    await page.goto(origin + url.pathname + url.search);
    await page.getByLabel("Name").fill("Grace Hopper");
    await page.getByLabel("Password").fill("another long passphrase");
    await page.getByRole("button", { name: "Accept invite" }).click();
    await page.getByRole("heading", { level: 1, name: "Two-factor authentication" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/account/two-factor/");
    await page.getByText("This workspace requires two-factor authentication.").waitFor();
    // Nothing else answers meanwhile.
    const blocked = await page.evaluate(async () => (await (await fetch("/api/v1/links/")).json()).code);
    expect(blocked).toBe("TWO_FACTOR_ENROLMENT_REQUIRED");
    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const secret = await page.getByRole("textbox", { name: "Setup key" }).inputValue();
    await page.getByLabel("Authentication code").fill(TOTP.generate({ secret: Secret.fromBase32(secret) }));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("button", { name: "I have saved them" }).click();
    await page.getByRole("link", { name: "Continue to Links" }).click();
    await page.getByRole("heading", { level: 1, name: "Links" }).waitFor();
    expect(await page.evaluate(async () => (await fetch("/api/v1/links/")).status)).toBe(200);
  },
  TIMEOUT_MS,
);
