/**
 * @module test/e2e/console-walk
 * The operator console walked in real Chromium against a real `earshot serve` (from source or a
 * compiled binary) on a fresh data directory (issue 10, DESIGN §10): first start → setup URL →
 * owner account → sign out and in → API key "CI" with two scopes used against the API, totals,
 * revoke → 401 → webhook to a real HTTPS receiver, test event, delivery log, redeliver → invite a
 * viewer, whose writes are refused → password reset → a member of two workspaces switches
 * between them → sign out. Every page passes axe-core (no
 * serious or critical violation) and no request leaves the origin. With `screenshots`, each
 * page is saved at 1280 and 390 px, light and dark, under `test-results/console/`.
 */
import { expect } from "bun:test";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startHttpsReceiver } from "../helpers/https-receiver.ts";
import { REPO_DIR, runCli, startServer, type RunningServer } from "../helpers/process.ts";
import { makeDataDir, removeDir } from "./voice-flow.ts";
import { apiWrite, OWNER, setupUrlOf } from "../helpers/console-browser.ts";
import pkg from "../../package.json" with { type: "json" };

export const SCREENSHOT_DIR = path.join(REPO_DIR, "test-results", "console");
const VIEWER = { name: "Grace Hopper", email: "grace@example.com", password: "another long passphrase" };
const VARIANTS = [
  { width: 1280, scheme: "light" },
  { width: 1280, scheme: "dark" },
  { width: 390, scheme: "light" },
  { width: 390, scheme: "dark" },
] as const;

let axeSource: string | null = null;

/** Runs axe-core in the page; fails on any serious or critical violation. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  axeSource ??= await readFile(path.join(REPO_DIR, "node_modules", "axe-core", "axe.min.js"), "utf8");
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await axe.run()).violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map(
        (v) =>
          `${v.impact} ${v.id}: ${v.nodes
            .map((n) => n.target.join(" "))
            .slice(0, 3)
            .join(" | ")}`,
      );
  });
  expect({ page: label, violations }).toEqual({ page: label, violations: [] });
}

/**
 * Tabs through the page from the top: every visible, enabled control receives focus, and each
 * shows a focus ring (`:focus-visible` with an outline).
 */
export async function expectKeyboardReachable(page: Page, label: string): Promise<void> {
  const total = await page.evaluate(() => {
    const controls = [...document.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, [tabindex='0']")].filter(
      (el) => !(el as HTMLButtonElement).disabled && (el.offsetParent !== null || getComputedStyle(el).position === "fixed"),
    );
    document.querySelectorAll("[data-kb]").forEach((el) => el.removeAttribute("data-kb"));
    controls.forEach((el, i) => el.setAttribute("data-kb", String(i)));
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
    return controls.length;
  });
  const seen = new Set<string>();
  const unringed: string[] = [];
  // Date-time inputs take one Tab per segment (month, day, …), so allow several per control.
  for (let i = 0; i < total * 6 && seen.size < total; i++) {
    await page.keyboard.press("Tab");
    const f = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      // Chrome highlights the focused segment of a date-time input itself.
      const segmented = el instanceof HTMLInputElement && el.type.startsWith("date");
      const ring = segmented || (el.matches(":focus-visible") && getComputedStyle(el).outlineStyle !== "none");
      return { id: el.getAttribute("data-kb"), ring, what: `${el.tagName} ${el.getAttribute("aria-label") ?? el.textContent?.trim().slice(0, 30) ?? ""}` };
    });
    if (!f) continue;
    if (f.id !== null) seen.add(f.id);
    if (!f.ring) unringed.push(f.what);
  }
  expect({ label, reached: seen.size, unringed }).toEqual({ label, reached: total, unringed: [] });
}

/** Saves the page at every width and colour scheme (and checks each with axe). */
export async function shootAll(page: Page, name: string, enabled: boolean): Promise<void> {
  if (!enabled) {
    await expectAccessible(page, name);
    return;
  }
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  for (const v of VARIANTS) {
    await page.setViewportSize({ width: v.width, height: 900 });
    await page.emulateMedia({ colorScheme: v.scheme });
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${v.width}-${v.scheme}.png`), fullPage: true });
    // Usable at this width: nothing makes the page scroll sideways (wide tables scroll in their box).
    expect({ name, width: await page.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ name, width: v.width });
    await expectAccessible(page, `${name} ${v.width} ${v.scheme}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });
}

/** The number a figure ("Keys created", …) shows. */
async function figure(page: Page, name: string): Promise<number> {
  const text = await page.getByRole("figure", { name }).locator(".figure-value").textContent();
  return Number((text ?? "").replace(/[^\d]/g, ""));
}

/** Polls `read` until `pred` holds (10 s), reloading the page between tries when asked. */
async function eventually<T>(read: () => Promise<T>, pred: (v: T) => boolean, what: string, reload?: Page): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (pred(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await Bun.sleep(250);
    if (reload) {
      await reload.reload();
      await reload.getByRole("heading", { level: 1 }).waitFor();
    }
  }
}

async function signIn(page: Page, origin: string, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${origin}/console/login/`);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Console" }).waitFor();
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole("navigation", { name: "Console" }).getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
}

async function openNav(page: Page, link: string, heading: string): Promise<void> {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: link, exact: true }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

/** A write with the page's own session (cookie + CSRF token), as the console would send it; the problem's `code`. */
async function sessionFetch(page: Page, method: string, apiPath: string, body: unknown): Promise<{ status: number; code: string | null }> {
  const reply = await apiWrite(page, method, apiPath, body);
  return { status: reply.status, code: (reply.body as { code?: string } | null)?.code ?? null };
}

// Kept here too for the tests that import it from the walk.
export { setupUrlOf };

/**
 * The whole walk on a fresh data directory.
 * @param opts.bin command prefix of a compiled binary (from source when omitted)
 * @param opts.screenshots save every page in four variants under test-results/console/
 */
export async function runConsoleWalk(opts: { bin?: string[]; screenshots?: boolean } = {}): Promise<void> {
  const shots = opts.screenshots ?? false;
  const dataDir = await makeDataDir();
  const receiver = await startHttpsReceiver();
  let server: RunningServer | null = null;
  let browser: BrowserContext | null = null;
  try {
    server = await startServer({
      dataDir,
      bin: opts.bin,
      env: { EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost", EARSHOT_WEBHOOK_CA_FILE: receiver.certs.caFile },
    });
    const setupUrl = await setupUrlOf(server);
    const origin = new URL(setupUrl).origin;
    browser = await launchBrowser({ microphone: false, bypassCSP: true });
    const requests: string[] = [];
    browser.on("request", (r) => requests.push(r.url()));
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });

    // `/` leads to the console; signed out, the console leads to sign-in.
    await page.goto(`${origin}/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/login/");

    // First start: the setup URL creates the owner.
    await page.goto(setupUrl);
    await page.getByRole("heading", { name: "Set up Earshot" }).waitFor();
    await shootAll(page, "setup", shots);
    await page.getByLabel("Name").fill(OWNER.name);
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Create account" }).click();
    const nav = page.getByRole("navigation", { name: "Console" });
    await nav.waitFor();
    for (const name of ["Links", "Responses", "API keys", "Webhooks", "Settings"]) {
      await expect(nav.getByRole("link", { name, exact: true }).isVisible()).resolves.toBe(true);
    }
    // The footer names the version the server runs (issue 26).
    await page.getByRole("contentinfo").getByText(`Earshot ${pkg.version}`, { exact: true }).waitFor();
    // The setup URL works once.
    expect(
      (
        await fetch(`${origin}/api/v1/auth/setup/`, {
          method: "POST",
          headers: { "content-type": "application/json", origin },
          body: JSON.stringify({ token: new URL(setupUrl).searchParams.get("token"), name: "X", email: "x@example.com", password: "xxxxxxxxxxxxxxxx" }),
        })
      ).status,
    ).not.toBeLessThan(400);

    await signOut(page);
    await shootAll(page, "sign-in", shots);
    await signIn(page, origin, OWNER);

    // API keys: create "CI" with two scopes; the key works and the totals change.
    await openNav(page, "API keys", "API keys");
    const table = page.getByRole("table", { name: "Active API keys" });
    await table.getByRole("row").nth(1).waitFor();
    for (const name of ["Name", "Key", "Scopes", "Created", "Last used"]) {
      await expect(table.getByRole("columnheader", { name, exact: true }).count()).resolves.toBe(1);
    }
    const before = { created: await figure(page, "Keys created"), active: await figure(page, "Active keys") };
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByLabel("Name").fill("CI");
    for (const box of await page.getByRole("group", { name: "Scopes" }).getByRole("checkbox").all()) await box.setChecked(false);
    await page.getByRole("checkbox", { name: "links:read" }).check();
    await page.getByRole("checkbox", { name: "responses:read" }).check();
    await page.getByRole("button", { name: "Create", exact: true }).click();
    const keyField = page.getByRole("textbox", { name: "New API key" });
    await keyField.waitFor();
    const key = await keyField.inputValue();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    expect(await page.getByRole("textbox", { name: "Try it with curl" }).inputValue()).toContain(`Bearer ${key}`);
    await expect(page.getByRole("button", { name: "Copy" }).first().isVisible()).resolves.toBe(true);
    await shootAll(page, "keys-created", shots);
    await expectKeyboardReachable(page, "API keys");
    const row = table.getByRole("row").filter({ hasText: "CI" });
    await row.waitFor();
    expect(await row.textContent()).toContain("links:read");
    expect(await row.textContent()).toContain("responses:read");
    expect(await row.textContent()).toContain(`${key.slice(8, 12)}`);
    expect(await row.textContent()).not.toContain(key);
    await eventually(
      () => figure(page, "Keys created"),
      (n) => n === before.created + 1,
      "Keys created",
    );
    await eventually(
      () => figure(page, "Active keys"),
      (n) => n === before.active + 1,
      "Active keys",
    );
    const callsBefore = await figure(page, "API calls today");
    const bearer = { authorization: `Bearer ${key}` };
    expect((await fetch(`${origin}/api/v1/links/`, { headers: bearer })).status).toBe(200);
    expect((await fetch(`${origin}/api/v1/workspace/`, { headers: bearer })).status).toBe(200);
    // A key with links:read only cannot write.
    expect(
      (
        await fetch(`${origin}/api/v1/links/`, {
          method: "POST",
          headers: { ...bearer, "content-type": "application/json" },
          body: JSON.stringify({ name: "x" }),
        })
      ).status,
    ).toBe(403);
    await eventually(
      () => figure(page, "API calls today"),
      (n) => n >= callsBefore + 2,
      "API calls today",
      page,
    );
    const lastUsed = page
      .getByRole("row")
      .filter({ hasText: "CI" })
      .locator("time")
      .filter({ hasText: /ago|now/ });
    await lastUsed.waitFor();
    expect(Date.parse((await lastUsed.getAttribute("datetime"))!)).toBeGreaterThan(Date.now() - 60_000);
    expect(await lastUsed.getAttribute("title")).toMatch(/\d{1,2}:\d{2}:\d{2}/); // the exact time on hover

    // Revoke with confirmation; the key answers 401 at once.
    await page.getByRole("button", { name: "Revoke CI" }).click();
    await page.getByRole("dialog").waitFor();
    await shootAll(page, "keys-revoke-dialog", shots);
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await page.getByRole("status").filter({ hasText: "revoked" }).waitFor();
    expect((await fetch(`${origin}/api/v1/links/`, { headers: bearer })).status).toBe(401);
    await eventually(
      () => figure(page, "Active keys"),
      (n) => n === before.active,
      "Active keys after revoke",
    );
    expect(await figure(page, "Keys created")).toBe(before.created + 1);
    await shootAll(page, "keys", shots);

    // Webhooks: create one to the HTTPS receiver, test event, delivery log, redeliver.
    await openNav(page, "Webhooks", "Webhooks");
    await page.getByRole("button", { name: "Add webhook" }).click();
    await page.getByLabel("URL").fill(receiver.url);
    await page.getByRole("checkbox", { name: "response.started" }).check();
    // The optional link filter: "All links" unless one is chosen.
    expect(await page.getByRole("combobox", { name: "Link" }).inputValue()).toBe("");
    await page.getByRole("button", { name: "Add webhook" }).click();
    const secret = await page.getByRole("textbox", { name: "Signing secret" }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    const hookRow = page.getByRole("table", { name: "Webhooks" }).getByRole("row").filter({ hasText: receiver.url });
    await hookRow.waitFor();
    expect(await hookRow.textContent()).toContain("Enabled");
    await shootAll(page, "webhooks", shots);
    await page.getByRole("link", { name: "Open webhook" }).click();
    await page.getByRole("heading", { level: 1, name: receiver.url }).waitFor();
    await page.getByRole("button", { name: "Send test event" }).click();
    const [first] = await receiver.waitFor((r) => r.length >= 1);
    const log = page.getByRole("table", { name: "Delivery log" });
    await log.getByRole("row").filter({ hasText: "webhook.test" }).filter({ hasText: "succeeded" }).waitFor({ timeout: 15_000 });
    expect(await log.textContent()).toContain("200");
    expect(await log.textContent()).toMatch(/\d+ ms/);
    await log.getByRole("button", { name: "Redeliver" }).first().click();
    const again = await receiver.waitFor((r) => r.length >= 2);
    expect(again[1]!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    await eventually(
      () => log.getByRole("row").filter({ hasText: "succeeded" }).count(),
      (n) => n >= 2,
      "two succeeded deliveries",
    );
    await shootAll(page, "webhook", shots);
    await expectKeyboardReachable(page, "Webhook");

    // Settings: the owner renames the workspace (the plan shown is the first start's), invites a viewer.
    await openNav(page, "Settings", "Settings");
    expect(await page.getByLabel("Plan").inputValue()).toBe("enterprise");
    await page.getByLabel("Workspace name").fill("Acme feedback");
    await page.getByRole("button", { name: "Save workspace" }).click();
    await page.getByRole("status").filter({ hasText: "Workspace saved." }).waitFor();
    await page.getByRole("banner").getByText("Acme feedback").waitFor();
    expect(await page.getByLabel("Invite role").inputValue()).toBe("member");
    await page.getByRole("heading", { name: "Members" }).waitFor();
    await page.getByLabel("Invite email").fill(VIEWER.email);
    await page.getByLabel("Invite role").selectOption("viewer");
    await page.getByRole("button", { name: "Create invite" }).click();
    const inviteUrl = await page.getByRole("textbox", { name: "Invite URL" }).inputValue();
    expect(await page.getByLabel("Invite role").inputValue()).toBe("viewer"); // never falls back to owner
    expect(inviteUrl).toContain("/console/invite/?token=");
    await page.getByRole("table", { name: "Audit log" }).getByText("token.revoked").waitFor();
    const models = page.getByRole("table", { name: "Installed models" });
    await models.getByRole("row").filter({ hasText: "whisper-tiny-random" }).filter({ hasText: "installed" }).waitFor();
    await shootAll(page, "settings", shots);
    await expectKeyboardReachable(page, "Settings");
    // Links and Responses list real data: a link made with the owner's session shows up.
    expect(
      (await sessionFetch(page, "POST", "links/", { name: "Product feedback", questions: [{ prompt: "What should we improve?", type: "text" }] })).status,
    ).toBe(201);
    await openNav(page, "Links", "Links");
    const linkRow = page.getByRole("table", { name: "Links" }).getByRole("row").filter({ hasText: "Product feedback" });
    await linkRow.waitFor();
    expect(await linkRow.getByRole("link", { name: /\/i\/product-feedback/ }).getAttribute("href")).toMatch(/\/i\/product-feedback\/?$/);
    await shootAll(page, "links", shots);
    await openNav(page, "Responses", "Responses");
    await shootAll(page, "responses", shots);

    // The viewer joins through the invite; reads work, writes are refused.
    await signOut(page);
    await page.goto(new URL(new URL(inviteUrl).pathname + new URL(inviteUrl).search, origin).toString());
    await page.getByRole("heading", { name: "Accept an invite" }).waitFor();
    await page.getByText(VIEWER.email).waitFor();
    await shootAll(page, "invite", shots);
    await page.getByLabel("Name").fill(VIEWER.name);
    await page.getByLabel("Password").fill(VIEWER.password);
    await page.getByRole("button", { name: "Accept invite" }).click();
    await nav.waitFor();
    await openNav(page, "Links", "Links");
    await page.getByRole("table", { name: "Links" }).getByRole("row").filter({ hasText: "Product feedback" }).waitFor();
    await openNav(page, "API keys", "API keys");
    await page.getByRole("alert").filter({ hasText: "Your role does not allow this" }).first().waitFor();
    expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0);
    await expectAccessible(page, "keys as viewer");
    expect(await sessionFetch(page, "POST", "links/", { name: "Not allowed" })).toEqual({ status: 403, code: "INSUFFICIENT_SCOPE" });
    expect(await sessionFetch(page, "POST", "tokens/", { name: "Not allowed" })).toEqual({ status: 403, code: "INSUFFICIENT_SCOPE" });
    await signOut(page);

    // A reset URL from the CLI sets a new password; the old one stops working.
    const reset = await runCli(["user", "reset-password", "--email", OWNER.email], { dataDir, bin: opts.bin });
    expect(reset.code).toBe(0);
    const resetUrl = /(https?:\/\/\S+\/console\/reset\/\?token=[^\s'"]+)/.exec(reset.stdout)?.[1];
    expect(resetUrl).toBeDefined();
    await page.goto(new URL(new URL(resetUrl!).pathname + new URL(resetUrl!).search, origin).toString());
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await shootAll(page, "reset", shots);
    const newPassword = "a brand new long passphrase";
    await page.getByLabel("New password").fill(newPassword);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByRole("status").filter({ hasText: "Your password is changed" }).waitFor();
    await page.goto(`${origin}/console/login/`);
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    await signIn(page, origin, { email: OWNER.email, password: newPassword });

    // Someone in two workspaces switches between them: Lin owns a second workspace (made on the
    // CLI) and accepts Ada's invite to the first with her existing password.
    const second = await runCli(["workspace", "create", "--name", "Second workspace", "--json"], { dataDir, bin: opts.bin });
    expect(second.code).toBe(0);
    const secondUuid = (JSON.parse(second.stdout) as { workspace_uuid: string }).workspace_uuid;
    const lin = await runCli(["user", "create", "--email", "lin@example.com", "--name", "Lin", "--workspace", secondUuid, "--role", "owner"], {
      dataDir,
      bin: opts.bin,
    });
    expect(lin.code).toBe(0);
    const linReset = /\/console\/reset\/\?token=[^\s'"]+/.exec(lin.stdout)?.[0];
    expect(linReset).toBeDefined();
    const linPassword = "lin's long enough password";
    await page.goto(origin + linReset!);
    await page.getByLabel("New password").fill(linPassword);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByRole("status").filter({ hasText: "Your password is changed" }).waitFor();
    // Ada is still signed in (the reset ended only Lin's sessions).
    await page.goto(`${origin}/console/settings/`);
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    await page.getByLabel(`Role of ${VIEWER.name}`).selectOption("member");
    await page
      .getByRole("status")
      .filter({ hasText: `${VIEWER.name} is now member.` })
      .waitFor();
    await page.getByLabel("Invite email").fill("lin@example.com");
    await page.getByLabel("Invite role").selectOption("admin");
    await page.getByRole("button", { name: "Create invite" }).click();
    const linInvite = new URL(await page.getByRole("textbox", { name: "Invite URL" }).inputValue());
    await signOut(page);
    await page.goto(origin + linInvite.pathname + linInvite.search);
    await page.getByLabel("Name").fill("Lin");
    await page.getByLabel("Password").fill(linPassword);
    await page.getByRole("button", { name: "Accept invite" }).click();
    const switcher = page.getByRole("combobox", { name: "Workspace" });
    await switcher.waitFor();
    await openNav(page, "API keys", "API keys");
    const keysIn = async () => (await page.getByRole("table", { name: "Active API keys" }).locator("tbody").textContent()) ?? "";
    const options = await switcher.locator("option").evaluateAll((os) => os.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent ?? "" })));
    expect(options.map((o) => o.text).sort()).toEqual(["Acme feedback (admin)", "Second workspace (owner)"]);
    const seenKeys: Record<string, string> = {};
    for (const o of [...options].reverse()) {
      // A real switch: the session's workspace changes, then the page (remounted) loads that
      // workspace's keys. The select shows the choice at once, and the old table is still there
      // until the reload: waiting on either alone read the previous workspace's keys.
      const switching = (await switcher.inputValue()) !== o.value;
      const switched = switching ? page.waitForResponse((r) => r.url().endsWith("/api/v1/auth/session/workspace/") && r.request().method() === "POST") : null;
      const reloaded = switching ? page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/tokens/" && r.request().method() === "GET") : null;
      await switcher.selectOption(o.value);
      if (switched) expect((await switched).status()).toBe(200);
      if (reloaded) expect((await reloaded).status()).toBe(200);
      await eventually(
        () => switcher.inputValue(),
        (v) => v === o.value,
        `switched to ${o.text}`,
      );
      await page.getByRole("table", { name: "Active API keys" }).getByRole("row").nth(1).waitFor();
      seenKeys[o.value] = await eventually(keysIn, (t) => t.includes("sk_live_") && !Object.values(seenKeys).includes(t), `keys of ${o.text}`);
    }
    expect(seenKeys[secondUuid]).toBeDefined();
    await shootAll(page, "switcher", false);
    await signOut(page);
    await signIn(page, origin, { email: OWNER.email, password: newPassword });

    // Sign out ends the session.
    await signOut(page);
    expect(await page.evaluate(async () => (await fetch("/api/v1/auth/session/")).status)).toBe(401);

    // Nothing left the origin.
    const foreign = requests.filter((u) => !u.startsWith("data:") && new URL(u).origin !== origin);
    expect(foreign).toEqual([]);
    expect(requests.length).toBeGreaterThan(10);
  } finally {
    await browser?.close();
    await server?.stop();
    await receiver.close();
    await removeDir(dataDir);
  }
}
