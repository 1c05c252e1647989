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
import type { Page } from "playwright-core";
import { startOidcConsole, type OidcConsole } from "../helpers/oidc-console.ts";
import { SCREENSHOT_DIR, expectAccessible } from "./console-walk.ts";

const TIMEOUT_MS = 120_000;
const WIDTHS = [390, 1280] as const;

let oidc: OidcConsole;
let page: Page;
/** The console's origin as the server names itself (see {@link OidcConsole.origin}). */
let origin: string;

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
  oidc = await startOidcConsole({
    users: [
      { email: "ada@example.com", email_verified: true, name: "Ada Lovelace", groups: ["earshot-admins"] },
      { email: "una@example.com", email_verified: false, name: "Una", groups: ["earshot-admins"] },
    ],
    env: { EARSHOT_OIDC_ROLE_CLAIM: "groups", EARSHOT_OIDC_ROLE_MAP: "earshot-admins=admin,earshot=member" },
  });
  ({ page, origin } = oidc);
}, TIMEOUT_MS);

afterAll(async () => {
  await oidc?.close();
});

test(
  "a refusal comes back to the sign-in page explained",
  async () => {
    await oidc.signInThroughProvider("una@example.com");
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
    await oidc.signInThroughProvider("ada@example.com");
    await page.getByRole("navigation", { name: "Console" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/links/");
    const session = await page.evaluate(async () => (await fetch("/api/v1/auth/session/")).json());
    expect(session.user.email).toBe("ada@example.com");
    expect(session.role).toBe("admin");
    await shoot("signed-in");
  },
  TIMEOUT_MS,
);
