/**
 * @module test/e2e/console-embed.test
 * The embed kit in the operator console (issue 29) in Chromium against a real server (from
 * source), under the console's real CSP: Settings › Embedding saves the allowed origins (and shows
 * the API's error for one that is not an origin); a saved link's "Share / Embed" card shows the
 * one-tag snippet of each mode, and its live preview — the box's preview page loading /embed.js —
 * shows the link's page in preview mode (nothing recorded), the popup opening inside the preview.
 *
 * With `EARSHOT_SHOTS_DIR` set, screenshots of the card (1280 px, inline and popup) are saved there.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import path from "node:path";
import type { Frame, Page } from "playwright-core";
import { apiWrite, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";

const TIMEOUT_MS = 120_000;
const PROMPT = "What should we do better?";

let session: ConsoleOwner;
let page: Page;
let origin: string;

beforeAll(async () => {
  session = await openConsoleAsOwner({ viewport: { width: 1280, height: 900 } });
  ({ page, origin } = session);
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
});

test(
  "Settings › Embedding saves the allowed origins, and refuses one that is not an origin",
  async () => {
    await page.goto(`${origin}/console/settings/`);
    const field = page.getByLabel("Allowed origins");
    await field.fill("https://shop.example.com/\nhttps://shop.example.com/checkout");
    await page.getByRole("button", { name: "Save allowed origins" }).click();
    await page
      .getByText(/allowed_origins\/1|Use an origin such as/)
      .first()
      .waitFor();
    await field.fill("HTTPS://Shop.Example.com/\nhttp://127.0.0.1:8081");
    await page.getByRole("button", { name: "Save allowed origins" }).click();
    await page.getByText("Allowed origins saved.").waitFor();
    await page.reload();
    expect(await page.getByLabel("Allowed origins").inputValue()).toBe("https://shop.example.com\nhttp://127.0.0.1:8081");
  },
  TIMEOUT_MS,
);

/** The link's page inside the card's preview, once its question shows. */
async function previewedIntake(): Promise<Frame> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const frame = page.frames().find((f) => /\/w\/[^/]+\/i\/feedback\?preview=1/.test(f.url()));
    if (frame && (await frame.getByLabel(PROMPT).count()) > 0) return frame;
    await page.waitForTimeout(100);
  }
  throw new Error(`no intake page in the preview; frames: ${page.frames().map((f) => f.url())}`);
}

test(
  "a link's Share / Embed card: a snippet per mode, and a live preview through embed.js that records nothing",
  async () => {
    const created = await apiWrite(page, "POST", "links/", { name: "Feedback", slug: "feedback", questions: [{ prompt: PROMPT, type: "text" }] });
    expect(created.status).toBe(201);
    const csp: string[] = [];
    page.on("console", (m) => m.text().includes("Content Security Policy") && csp.push(m.text()));
    await page.goto(`${origin}/console/links/${created.body.uuid}/`);
    await page.getByRole("heading", { name: "Share / Embed" }).waitFor();
    const snippet = page.getByLabel("Embed snippet");
    expect(await snippet.inputValue()).toBe(
      `<script src="${origin}/embed.js" data-earshot-link="${created.body.public_url}" data-mode="inline" async></script>`,
    );
    expect(await page.locator('iframe[title="Embed preview"]').count()).toBe(0); // loaded on demand
    await page.getByRole("button", { name: "Show preview" }).click();
    const inline = await previewedIntake();
    expect(await inline.locator(".preview-note").count()).toBe(1); // the page says nothing is recorded
    const card = page.locator(".embed-card");
    if (process.env.EARSHOT_SHOTS_DIR) await card.screenshot({ path: path.join(process.env.EARSHOT_SHOTS_DIR, "console-embed-inline-1280.png") });

    for (const mode of ["popup", "slide-in", "button"]) {
      const button = page
        .getByRole("group", { name: "Mode" })
        .getByRole("button", { name: mode === "slide-in" ? "Slide-in" : mode[0]!.toUpperCase() + mode.slice(1) });
      await button.click();
      expect(await button.getAttribute("aria-pressed")).toBe("true");
      expect(await snippet.inputValue()).toContain(`data-mode="${mode}"`);
    }
    await page.getByRole("group", { name: "Mode" }).getByRole("button", { name: "Popup" }).click();
    const preview = page.frameLocator('iframe[title="Embed preview"]');
    await preview.getByRole("dialog", { name: "Feedback" }).waitFor();
    await previewedIntake();
    if (process.env.EARSHOT_SHOTS_DIR) await card.screenshot({ path: path.join(process.env.EARSHOT_SHOTS_DIR, "console-embed-popup-1280.png") });
    // A preview answer is not recorded.
    const responses = await page.evaluate(async (uuid) => (await (await fetch(`/api/v1/links/${uuid}/responses/?status=all`)).json()).count, created.body.uuid);
    expect(responses).toBe(0);
    expect(csp).toEqual([]);
  },
  TIMEOUT_MS,
);
