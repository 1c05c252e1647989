/**
 * @module test/e2e/console-first-hour.test
 * The first-hour traps of issue 26 in Chromium against a real server: the console warns when it
 * is opened under another origin than EARSHOT_PUBLIC_URL (and start-up says so in one line when
 * the public URL is loopback-only on a server listening beyond loopback); the API keys table is
 * usable at 320 and 375 px; every NPS button is at least 24 × 24 px at 320 px; the builder's
 * question cards are collapsed except the one being edited. Screenshots under
 * `test-results/console/first-hour-*`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../helpers/process.ts";
import { apiWrite, OWNER, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";
import { SCREENSHOT_DIR, expectAccessible } from "./console-walk.ts";

const TIMEOUT_MS = 120_000;
const WIDTHS = [320, 375, 1280] as const;

let session: ConsoleOwner;
let server: RunningServer;
let browser: BrowserContext;
/** The public URL's origin (`http://localhost:<port>`), where the owner signed up. */
let origin: string;
let page: Page;

/** Screenshots of the page at phone and desktop widths (light), named first-hour-<name>-<width>. */
async function shoot(p: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  for (const width of WIDTHS) {
    await p.setViewportSize({ width, height: 800 });
    await p.waitForTimeout(100);
    await p.screenshot({ path: path.join(SCREENSHOT_DIR, `first-hour-${name}-${width}.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  session = await openConsoleAsOwner({ browser: { microphone: false, bypassCSP: true } });
  ({ server, browser, page, origin } = session);
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
});

describe("public URL", () => {
  test("start-up names EARSHOT_PUBLIC_URL when it is loopback-only and the server listens on every address", () => {
    // startServer leaves EARSHOT_PUBLIC_URL unset and EARSHOT_HOST at 0.0.0.0.
    const lines = server
      .output()
      .split("\n")
      .filter((l) => l.includes("EARSHOT_PUBLIC_URL"));
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain(origin);
  });

  test(
    "the console warns under another origin than the public URL, explains EARSHOT_PUBLIC_URL, and stays quiet under the right one",
    async () => {
      expect(origin).toStartWith("http://localhost:");
      await page.goto(`${origin}/console/links/`);
      await page.getByRole("heading", { level: 1, name: "Links" }).waitFor();
      expect(await page.getByRole("region", { name: /Links point to/ }).count()).toBe(0);

      // The same server reached as 127.0.0.1 (another host name for the browser: its own cookie).
      const other = await browser.newPage();
      try {
        await other.goto(`${server.baseUrl}/console/login/`);
        await other.getByLabel("Email").fill(OWNER.email);
        await other.getByLabel("Password").fill(OWNER.password);
        await other.getByRole("button", { name: "Sign in" }).click();
        const warning = other.getByRole("region", { name: `Links point to ${origin}` });
        await warning.waitFor();
        const text = (await warning.textContent())!;
        expect(text).toContain(`You opened the console at ${server.baseUrl}`);
        expect(text).toContain(`EARSHOT_PUBLIC_URL=${server.baseUrl}`);
        await expectAccessible(other, "public URL warning");
        await shoot(other, "public-url-warning");
        // Hidden for this pair of origins, also after a reload.
        await warning.getByRole("button", { name: "Hide" }).click();
        expect(await warning.count()).toBe(0);
        await other.reload();
        await other.getByRole("heading", { level: 1, name: "Links" }).waitFor();
        expect(await other.getByRole("region", { name: /Links point to/ }).count()).toBe(0);
      } finally {
        await other.close();
      }
    },
    TIMEOUT_MS,
  );
});

describe("phone layouts and target sizes", () => {
  test(
    "the API keys table fits 320 and 375 px: every cell and the Revoke button are on screen, nothing scrolls sideways",
    async () => {
      for (const name of ["Deploy script", "Nightly export to the data warehouse"]) {
        const created = await apiWrite(page, "POST", "tokens/", { name, scopes: ["links:read", "links:write", "responses:read", "responses:write"] });
        expect(created.status).toBe(201);
      }
      await page.goto(`${origin}/console/keys/`);
      await page.getByRole("button", { name: "Revoke Deploy script" }).waitFor();
      for (const width of [320, 375]) {
        await page.setViewportSize({ width, height: 800 });
        const off = await page.evaluate(() => {
          const out: string[] = [];
          for (const el of document.querySelectorAll<HTMLElement>(".table-wrap tbody td, .table-wrap tbody button, .table-wrap tbody code")) {
            const r = el.getBoundingClientRect();
            if (r.left < 0 || r.right > window.innerWidth + 0.5) out.push(`${el.tagName} ${el.textContent?.trim().slice(0, 20)} ${r.left}–${r.right}`);
          }
          const wrap = document.querySelector<HTMLElement>(".table-wrap")!;
          if (wrap.scrollWidth > wrap.clientWidth) out.push(`table scrolls: ${wrap.scrollWidth} > ${wrap.clientWidth}`);
          if (document.documentElement.scrollWidth > window.innerWidth) out.push(`page scrolls: ${document.documentElement.scrollWidth}`);
          return out;
        });
        expect({ width, off }).toEqual({ width, off: [] });
        // Each value is still named by its column.
        expect(await page.getByRole("cell", { name: "Deploy script", exact: true }).isVisible()).toBe(true);
        await expectAccessible(page, `keys ${width}`);
      }
      await shoot(page, "keys");
    },
    TIMEOUT_MS,
  );

  test(
    "every NPS button is at least 24 × 24 px at 320, 375, 390 px and on a desktop (one row from 390 px)",
    async () => {
      const link = await apiWrite(page, "POST", "links/", {
        name: "NPS",
        questions: [{ prompt: "How likely are you to recommend us?", type: "rating", required: true, configuration: { scale_type: "nps" } }],
      });
      expect(link.status).toBe(201);
      const respondent = await browser.newPage();
      try {
        await respondent.setViewportSize({ width: 320, height: 700 });
        await respondent.goto(link.body.public_url);
        await respondent.getByRole("radio", { name: "10" }).waitFor({ state: "attached" });
        for (const width of [320, 360, 375, 387, 390, 1280]) {
          await respondent.setViewportSize({ width, height: 700 });
          const boxes = await respondent.evaluate(() =>
            [...document.querySelectorAll<HTMLElement>(".rating-nps .rating-point")].map((el) => {
              const r = el.getBoundingClientRect();
              return { text: el.textContent?.trim(), width: r.width, height: r.height, top: Math.round(r.top) };
            }),
          );
          expect(boxes.length).toBe(11);
          const small = boxes.filter((b) => b.width < 24 || b.height < 24);
          expect({ width, small }).toEqual({ width, small: [] });
          expect({ width, rows: new Set(boxes.map((b) => b.top)).size }).toEqual({ width, rows: width >= 390 ? 1 : 2 });
          expect(await respondent.evaluate(() => document.documentElement.scrollWidth)).toBe(width);
        }
        await shoot(respondent, "nps");
      } finally {
        await respondent.close();
      }
    },
    TIMEOUT_MS,
  );
});

describe("builder", () => {
  test(
    "question cards are collapsed except the one being edited; the title is a button with aria-expanded",
    async () => {
      const link = await apiWrite(page, "POST", "links/", {
        name: "Three questions",
        questions: [
          { prompt: "What should we improve first?", type: "text" },
          { prompt: "How would you rate us?", type: "rating", configuration: { scale_type: "stars", max_value: 5 } },
          { prompt: "Tell us more in your own words", type: "voice" },
        ],
      });
      expect(link.status).toBe(201);
      await page.goto(`${origin}/console/links/${link.body.uuid}/`);
      const cards = page.locator("ol.q-list > li");
      await cards.nth(2).waitFor();
      const toggles = page.locator("ol.q-list > li .q-toggle");
      expect(await toggles.evaluateAll((els) => els.map((e) => e.getAttribute("aria-expanded")))).toEqual(["false", "false", "false"]);
      expect(await page.getByLabel("Prompt").count()).toBe(0);
      // Collapsed, a card still says what it is.
      expect(await toggles.nth(1).textContent()).toContain("How would you rate us?");

      await page.getByRole("button", { name: /How would you rate us\?/ }).click();
      expect(await toggles.nth(1).getAttribute("aria-expanded")).toBe("true");
      expect(await cards.nth(1).getByLabel("Prompt").inputValue()).toBe("How would you rate us?");
      expect(await page.getByLabel("Prompt").count()).toBe(1);
      await expectAccessible(page, "builder with one card open");
      await shoot(page, "builder");

      // A new question is the one being edited: it opens, the others fold away.
      await page.getByRole("button", { name: "Add question" }).click();
      await cards.nth(3).getByLabel("Prompt").fill("Anything else?");
      expect(await toggles.evaluateAll((els) => els.map((e) => e.getAttribute("aria-expanded")))).toEqual(["false", "false", "false", "true"]);
      // Keyboard: the toggle folds the card again.
      await toggles.nth(3).focus();
      await page.keyboard.press("Enter");
      expect(await toggles.nth(3).getAttribute("aria-expanded")).toBe("false");
      expect(await page.getByLabel("Prompt").count()).toBe(0);

      // Saving keeps the cards as they were, and the edit reached the server.
      await toggles.nth(0).click();
      await page.getByRole("button", { name: "Save link" }).click();
      await page.getByText("Link saved.").waitFor();
      expect(await toggles.evaluateAll((els) => els.map((e) => e.getAttribute("aria-expanded")))).toEqual(["true", "false", "false", "false"]);
      const saved = await page.evaluate(async (u) => (await fetch(`/api/v1/links/${u}/`)).json(), link.body.uuid);
      expect(saved.questions.map((q: any) => q.prompt)).toEqual([
        "What should we improve first?",
        "How would you rate us?",
        "Tell us more in your own words",
        "Anything else?",
      ]);
    },
    TIMEOUT_MS,
  );
});

describe("image-choice cards", () => {
  test(
    "an operator uploads a card's image in the builder; it fills the media URL and the respondent sees it",
    async () => {
      const link = await apiWrite(page, "POST", "links/", {
        name: "Designs",
        questions: [
          {
            prompt: "Which design do you prefer?",
            type: "image_choice",
            configuration: { cards: [{ id: "calm", label: "Calm", media_url: "https://example.com/placeholder.png", media_type: "image" }] },
          },
        ],
      });
      expect(link.status).toBe(201);
      await page.goto(`${origin}/console/links/${link.body.uuid}/`);
      await page.getByRole("button", { name: /Which design do you prefer\?/ }).click();
      // A real 1 × 1 PNG, chosen in the file input as a user would.
      const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
      await page.getByLabel("Card 1 image file").setInputFiles({ name: "calm.png", mimeType: "image/png", buffer: png });
      await page.getByText("calm.png uploaded").waitFor();
      const url = await page.getByLabel("Card 1 media URL").inputValue();
      expect(url).toMatch(new RegExp(`^${origin}/api/v1/media/images/[0-9a-f-]{36}/$`));
      await expectAccessible(page, "builder after an image upload");
      await shoot(page, "image-upload");
      // An SVG is refused in words, and the URL stays.
      await page
        .getByLabel("Card 1 image file")
        .setInputFiles({ name: "evil.png", mimeType: "image/png", buffer: Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>") });
      const alert = page.getByRole("alert").filter({ hasText: "PNG, JPEG, WebP or GIF" });
      await alert.waitFor();
      expect(await page.getByLabel("Card 1 media URL").inputValue()).toBe(url);

      await page.getByRole("button", { name: "Save link" }).click();
      await page.getByText("Link saved.").waitFor();
      const respondent = await browser.newPage();
      try {
        await respondent.goto(link.body.public_url);
        const img = respondent.locator(".image-card img");
        await img.waitFor();
        expect(await img.getAttribute("src")).toBe(url);
        await respondent.waitForFunction(() => (document.querySelector(".image-card img") as HTMLImageElement | null)?.complete);
        expect(await img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(1);
      } finally {
        await respondent.close();
      }
    },
    TIMEOUT_MS,
  );
});
