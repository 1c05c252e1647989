/**
 * @module test/e2e/console-workspace-sso.test
 * A workspace's own single sign-on in Chromium (issue 28): a real server from source and a real
 * OpenID Provider (`oidc-provider` on a loopback port, let through the outbound guard with
 * EARSHOT_WEBHOOK_ALLOW_HOSTS). The owner fills the "Single sign-on" section of Settings and saves
 * it (the server loads the provider's discovery document); a member then opens the sign-in address
 * the section shows, clicks "Sign in with Acme IdP", logs in at the provider and lands in the
 * console, in this workspace only. Both pages pass axe (light and dark); screenshots at 390 and
 * 1280 px, light and dark, go to test-results/console/.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";
import { loginAtProviderPage } from "../helpers/oidc-console.ts";
import { callbackUrl, startTestProvider, type TestProvider } from "../helpers/oidc-provider.ts";
import { SCREENSHOT_DIR, expectAccessible } from "./console-walk.ts";

const TIMEOUT_MS = 180_000;
const WIDTHS = [390, 1280] as const;
const SCHEMES = ["light", "dark"] as const;

let provider: TestProvider;
let session: ConsoleOwner;
let page: Page;
const redirectUris: string[] = [];

/**
 * The page (or one part of it) at 390 and 1280 px, light and dark: no sideways scrolling, and axe
 * in dark too (dark mode's contrast is its own palette).
 */
async function shoot(name: string, part?: Locator): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(100);
      const file = path.join(SCREENSHOT_DIR, `workspace-sso-${name}-${width}-${scheme}.png`);
      if (part) await part.screenshot({ path: file });
      else await page.screenshot({ path: file, fullPage: true });
      expect({ name, width: await page.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ name, width });
      if (scheme === "dark") await expectAccessible(page, `${name} ${width} dark`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });
}

/** Runs `read` with the page 390 px wide (a phone), then puts it back to 1280. */
async function atPhone<T>(read: () => Promise<T>): Promise<T> {
  await page.setViewportSize({ width: 390, height: 900 });
  try {
    await page.waitForTimeout(100);
    return await read();
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}

/** Which of `words` inside `part` are found, and which the browser breaks over two lines. */
function brokenWords(part: Locator, words: string[]): Promise<{ found: string[]; broken: string[] }> {
  return part.evaluate((root, words) => {
    const found: string[] = [];
    const broken: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (const w of words) {
        const i = n.textContent!.indexOf(w);
        if (i < 0) continue;
        found.push(w);
        const r = document.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + w.length);
        if (new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1) broken.push(w);
      }
    }
    return { found, broken };
  }, words);
}

/** Labels of the read-only fields in `part` whose value runs out of sight (scrolls inside its box). */
function cutValues(part: Locator): Promise<string[]> {
  return part.evaluate((root) =>
    [...root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("input[readonly], textarea[readonly]")]
      .filter((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
      .map((el) => el.labels?.[0]?.textContent ?? el.id),
  );
}

beforeAll(async () => {
  provider = await startTestProvider(redirectUris);
  provider.users.set("mo@example.com", { email: "mo@example.com", email_verified: true, name: "Mo Member", groups: ["earshot"] });
  session = await openConsoleAsOwner({
    env: { EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1" },
    browser: { microphone: false, bypassCSP: true },
    viewport: { width: 1280, height: 900 },
  });
  ({ page } = session);
  // The provider reads its redirect URIs at its first request, which comes after this.
  redirectUris.push(callbackUrl(session.origin));
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
  await provider?.close();
});

test(
  "the owner sets up the workspace's provider in Settings; a member signs in through it to this workspace only",
  async () => {
    await page.goto(`${session.origin}/console/settings/`);
    const section = page.getByRole("region", { name: "Single sign-on" });
    await section.getByLabel("Provider name").fill("Acme IdP");
    // An issuer without a discovery document first: the error shows in place, nothing is saved.
    await section.getByLabel("Issuer URL").fill(`${provider.issuer}/missing`);
    await section.getByLabel("Client ID").fill(provider.clientId);
    await section.getByLabel("Allowed email domains").fill("example.com");
    await section.getByRole("button", { name: "Save single sign-on" }).click();
    await section.getByRole("alert").waitFor();
    expect(await section.getByRole("button", { name: "Test connection" }).count()).toBe(0);
    // The field it is about says so too (marked invalid, with what to check as its description).
    const issuer = section.getByLabel("Issuer URL");
    const describedBy = () => issuer.evaluate((el) => document.getElementById(el.getAttribute("aria-describedby") ?? "")?.textContent ?? null);
    expect(await issuer.getAttribute("aria-invalid")).toBe("true");
    expect(await describedBy()).toContain("/.well-known/openid-configuration");
    await shoot("error", section);
    await issuer.fill(provider.issuer);
    await section.getByLabel("Client secret").fill(provider.clientSecret);
    await section.getByLabel("Allowed email domains").fill("example.com");
    await section.getByLabel("Role claim").fill("groups");
    await section.getByLabel("Role mapping").fill("earshot=member");
    expect(await section.getByLabel("Role of new members").inputValue()).toBe("member");
    await section.getByLabel("Let new people of these domains join this workspace (otherwise invite-only)").check();
    await section.getByRole("button", { name: "Save single sign-on" }).click();
    await section.getByRole("status").filter({ hasText: "discovery document loaded" }).waitFor();
    expect(await section.getByLabel("Client secret").inputValue()).toBe("");
    await section.getByText("A secret is stored (it is never shown)").waitFor();
    expect(await issuer.getAttribute("aria-invalid")).toBeNull();
    expect(await section.getByLabel("Role of new members").inputValue()).toBe("member");
    await section.getByRole("button", { name: "Test connection" }).click();
    await section.getByRole("status").filter({ hasText: "Connection tested" }).waitFor();
    const signInUrl = await section.getByRole("textbox", { name: "Sign-in address for members" }).inputValue();
    expect(signInUrl).toMatch(/\/console\/login\/\?workspace=[a-z0-9-]+$/);
    await expectAccessible(page, "settings with single sign-on");
    await shoot("settings", section);
    // The Copy buttons end where the fields above them end; on a phone both URLs show whole.
    const right = async (l: Locator) => Math.round(((b) => b!.x + b!.width)(await l.boundingBox()));
    expect(await right(section.getByRole("button", { name: "Copy" }).first())).toBe(await right(section.getByLabel("Provider name")));
    expect(await atPhone(() => cutValues(section))).toEqual([]);

    // The member, in a browser of their own (no owner session, no provider session).
    await session.browser.clearCookies();
    await page.goto(signInUrl);
    const button = page.getByRole("button", { name: "Sign in with Acme IdP" });
    await button.waitFor();
    await expectAccessible(page, "sign-in page with a workspace's provider");
    await shoot("sign-in");
    // The reset command wraps between its words only (a phone once showed "-" and "-email").
    const hint = page.getByText("Forgot your password?");
    expect(await atPhone(() => brokenWords(hint, ["reset-password", "--email"]))).toEqual({ found: ["reset-password", "--email"], broken: [] });
    await button.click();
    await loginAtProviderPage(page, "mo@example.com");
    await page.getByRole("navigation", { name: "Console" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/links/");
    const me = await page.evaluate(async () => (await fetch("/api/v1/auth/session/")).json());
    expect(me.user.email).toBe("mo@example.com");
    expect(me.role).toBe("member");
    expect(me.memberships).toHaveLength(1);
    await shoot("signed-in");
    // The member's empty Links list: on a phone its sentence lies inside the table's box, not off to the right.
    const empty = page.getByRole("cell", { name: /^No links yet/ });
    const outside = await atPhone(() =>
      empty.evaluate((td) => {
        const r = document.createRange();
        r.selectNodeContents(td);
        const text = r.getBoundingClientRect();
        const box = td.closest(".table-wrap")!.getBoundingClientRect();
        return text.left < box.left || text.right > box.right;
      }),
    );
    expect(outside).toBe(false);
  },
  TIMEOUT_MS,
);
