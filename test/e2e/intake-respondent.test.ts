/**
 * @module test/e2e/intake-respondent.test
 * The respondent's side of the intake page (issue 12 "The respondent's page"), against a real
 * server (from source) in Chromium: an error disappears as soon as the answer is valid (also
 * beside "Thinking…"); copy in respondent's words (email, file types, voice); NPS 0–10 on one
 * row at 390 px with the required `*` never alone on a line; the session starts with the first
 * answer, not the page view, and resumes after a reload; after a refused microphone "Try the
 * microphone again" returns to recording, and the preview shows the recorded length.
 *
 * With `EARSHOT_SHOTS_DIR` set, the layout test also saves screenshots (390 and 1280 px, light
 * and dark) there for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { CHROMIUM_PATH, launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const STEP_MS = 20_000;

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let browser: BrowserContext;

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  browser = await launchBrowser({ microphone: false });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

/** Every response of a link, any status, through the workspace-wide list. */
async function responsesOf(linkUuid: string): Promise<any[]> {
  return (await api(server, apiKey, "GET", `responses/?status=all&link=${linkUuid}`)).results;
}

/** Saves light and dark screenshots of the page when `EARSHOT_SHOTS_DIR` is set. */
async function shoot(page: Page, name: string): Promise<void> {
  const dir = process.env.EARSHOT_SHOTS_DIR;
  if (!dir) return;
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.waitForTimeout(400); // let colour transitions finish
    await page.screenshot({ path: path.join(dir, `${name}-${colorScheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

/** The form's error line (`role="alert"`), hidden while empty. */
const alertText = async (page: Page) => ((await page.locator(".form-error[role=alert]").textContent()) ?? "").trim();

/**
 * Chromium with a fake microphone whose permission is NOT granted up front (no
 * `--use-fake-ui-for-media-stream`): getUserMedia is refused until the test grants it.
 */
async function launchWithMicrophonePrompt(): Promise<BrowserContext> {
  const profile = await mkdtemp(path.join(tmpdir(), "earshot-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--use-fake-device-for-media-stream",
    ],
  });
  const close = context.close.bind(context);
  context.close = async (options) => {
    try {
      await close(options);
    } finally {
      await rm(profile, { recursive: true, force: true });
    }
  };
  return context;
}

describe("the respondent's page", () => {
  test(
    "an error disappears as soon as the answer is valid, also beside Thinking…",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Errors go away",
        questions: [
          {
            prompt: "What did you think of the product?",
            type: "text",
            required: true,
            enable_dynamic_probing: true,
            evaluator_config: { clarity_threshold: 0.95, max_follow_ups: 1 },
          },
          { prompt: "Your email address", type: "email", required: true },
        ],
      });
      const page = await browser.newPage();
      // Whether an error was ever on screen together with "Thinking…".
      await page.addInitScript(() => {
        const w = window as unknown as { __both: boolean };
        w.__both = false;
        new MutationObserver(() => {
          const thinking = document.querySelector(".thinking")?.textContent;
          const error = document.querySelector(".form-error")?.textContent;
          if (thinking && error) w.__both = true;
        }).observe(document, { subtree: true, childList: true, characterData: true });
      });
      await page.goto(link.public_url);
      await page.getByRole("button", { name: "Next" }).click();
      expect(await alertText(page)).toBe("Please answer this question to continue.");
      expect(await page.getByLabel("What did you think of the product?").getAttribute("aria-invalid")).toBe("true");

      // Typing an answer clears it at once, before Next is pressed.
      await page.getByLabel("What did you think of the product?").fill("ok");
      expect(await alertText(page)).toBe("");
      expect(await page.getByLabel("What did you think of the product?").getAttribute("aria-invalid")).toBeNull();
      await page.getByRole("button", { name: "Next" }).click();
      await page.locator(".question-follow-up label.prompt").waitFor({ timeout: STEP_MS });
      expect(await page.evaluate(() => (window as unknown as { __both: boolean }).__both)).toBe(false);

      // Follow-up left empty, then answered: the error goes as the text arrives.
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("alert").filter({ hasText: "follow-up" }).waitFor();
      const followUp = (await page.locator(".question-follow-up label.prompt").textContent())!.trim();
      // Without an LLM: a short question of its own, not the prompt quoted again (issue 12).
      expect(followUp).not.toContain("What did you think of the product?");
      expect(followUp).toMatch(/^[^"“”]+[^?!.\s]\?$/);
      await page.getByRole("textbox", { name: followUp, exact: true }).fill("The export button is hard to find.");
      expect(await alertText(page)).toBe("");
      await page.getByRole("button", { name: "Next" }).click();

      // A format error updates as the address is typed and disappears once it is valid.
      const email = page.getByLabel("Your email address");
      await email.fill("ann@example");
      await page.getByRole("button", { name: "Submit" }).click();
      expect(await alertText(page)).toBe("Please enter an email address like name@example.com.");
      await email.fill("ann@example.com");
      expect(await alertText(page)).toBe("");
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "respondent-facing copy: email checked on the page, file types in words, server refusals in plain words",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Plain words",
        questions: [
          { prompt: "Your email address", type: "email" },
          { prompt: "Attach a photo or a PDF", type: "file_upload", configuration: { allowed_types: ["image/*", ".pdf"], max_size_mb: 10 } },
          { prompt: "Anything else?", type: "voice_text_fallback", required: true },
        ],
      });
      const page = await browser.newPage();
      const sent: string[] = [];
      page.on("request", (req) => {
        if (req.method() === "PUT") sent.push(req.postData() ?? "");
      });
      await page.goto(link.public_url);
      const email = page.getByLabel("Your email address");
      await email.fill("ann@example");
      await email.blur();
      await page.getByRole("button", { name: "Next" }).click();
      expect(await alertText(page)).toBe("Please enter an email address like name@example.com.");
      expect(sent.filter((body) => body.includes("ann@example"))).toEqual([]);
      await email.fill("ann@example.org");
      await page.getByRole("button", { name: "Next" }).click();

      await page.getByText("Images or PDF files, up to 10 MB.").waitFor();
      expect(await page.locator("body").innerText()).not.toContain("image/*");
      await page
        .getByLabel("Attach a photo or a PDF")
        .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("plain text, not a picture\n") });
      // The question shows before the page has settled the previous step (aria-busy on the form),
      // and Next is ignored until it has: under CI load the click could land in that moment.
      await page.locator("[aria-busy='true']").waitFor({ state: "detached" });
      await page.getByRole("button", { name: "Next" }).click();
      // The refusal comes back from the upload: wait for it rather than read at once.
      await page.locator(".form-error[role=alert]", { hasText: "can't be used here" }).waitFor();
      expect(await alertText(page)).toBe("This kind of file can't be used here. Please choose images or PDF files.");
      await page.setViewportSize({ width: 390, height: 844 });
      await shoot(page, "file-error-390");
      await page.setViewportSize({ width: 1280, height: 720 });

      const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
      await page.getByLabel("Attach a photo or a PDF").setInputFiles({ name: "photo.png", mimeType: "image/png", buffer: png });
      await page.getByText("Uploaded: photo.png").waitFor();
      expect(await alertText(page)).toBe("");
      await page.getByRole("button", { name: "Next" }).click();

      // No microphone here: the typed fallback; left empty, it asks in plain words.
      await page.getByRole("textbox", { name: "Anything else?" }).waitFor();
      await page.getByRole("button", { name: "Submit" }).click();
      expect(await alertText(page)).toBe("Please record your answer, or type it if you prefer, to continue.");
      for (const leak of ["Expected a valid email", "Allowed:", "where offered"]) {
        expect(await page.locator("body").innerText()).not.toContain(leak);
      }
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "NPS 0–10 on one row at 390 px, end labels under the ends, `*` never alone, no horizontal scroll",
    async () => {
      const prompt = "How likely are you to recommend Earshot to a friend or a colleague at work?";
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Layout",
        settings: { description: "A short survey about the product." },
        questions: [{ prompt, type: "rating", required: true, configuration: { scale_type: "nps" } }],
      });
      const page = await browser.newPage();
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 844 });
        await page.goto(link.public_url);
        const group = page.getByRole("radiogroup", { name: prompt });
        await group.waitFor();
        const layout = await page.evaluate(() => {
          const points = [...document.querySelectorAll<HTMLElement>(".rating-nps .rating-point")];
          const rect = (el: Element | null) => el!.getBoundingClientRect();
          const captions = [...document.querySelectorAll(".rating-captions span")];
          return {
            tops: points.map((p) => p.offsetTop),
            widths: points.map((p) => rect(p).width),
            firstLeft: rect(points[0]!).left,
            lastRight: rect(points.at(-1)!).right,
            captionLeft: rect(captions[0]!).left,
            captionRight: rect(captions[1]!).right,
            captionTops: captions.map((c) => rect(c).top),
            scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth,
          };
        });
        expect(layout.tops).toHaveLength(11);
        expect(new Set(layout.tops).size).toBe(1);
        for (const w of layout.widths) expect(w).toBeGreaterThanOrEqual(24);
        expect(Math.abs(layout.captionLeft - layout.firstLeft)).toBeLessThan(2);
        expect(Math.abs(layout.captionRight - layout.lastRight)).toBeLessThan(2);
        expect(layout.captionTops[0]).toBe(layout.captionTops[1]!);
        expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
        await group.getByRole("radio", { name: "8", exact: true }).check();
        await shoot(page, `nps-${width}`);
      }

      // A 1–10 "numbers" scale keeps one row too.
      const numbers = await api(server, apiKey, "POST", "links/", {
        name: "Numbers",
        questions: [{ prompt: "Rate the checkout from 1 to 10", type: "rating", configuration: { scale_type: "numbers", max_value: 10 } }],
      });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(numbers.public_url);
      await page.getByRole("radiogroup", { name: "Rate the checkout from 1 to 10" }).waitFor();
      const numberTops = await page.evaluate(() => [...document.querySelectorAll<HTMLElement>(".rating-numbers .rating-point")].map((p) => p.offsetTop));
      expect(numberTops).toHaveLength(10);
      expect(new Set(numberTops).size).toBe(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);

      // A one-line prompt squeezed to exactly its text's width: the `*` no longer fits after it and
      // must take the last word with it to the next line instead of wrapping alone.
      const short = await api(server, apiKey, "POST", "links/", {
        name: "Star",
        questions: [{ prompt: "Your full name", type: "text", required: true }],
      });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(short.public_url);
      await page.getByLabel("Your full name").waitFor();
      const star = await page.evaluate(() => {
        const prompt = document.querySelector<HTMLElement>(".prompt")!;
        const text = prompt.querySelector(".prompt-text")!;
        const node = text.firstChild as Text;
        const whole = document.createRange();
        whole.selectNodeContents(node);
        prompt.style.width = `${Math.ceil(whole.getBoundingClientRect().right - prompt.getBoundingClientRect().left)}px`;
        const lastWord = document.createRange();
        lastWord.setStart(node, node.data.lastIndexOf(" ") + 1);
        lastWord.setEnd(node, node.data.length);
        return { markTop: prompt.querySelector(".required-mark")!.getBoundingClientRect().top, wordTop: lastWord.getBoundingClientRect().top };
      });
      expect(star.markTop).toBe(star.wordTop);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "the session starts with the first answer, not the page view, and resumes after a reload",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Views are not responses",
        questions: [
          { prompt: "What brought you here today?", type: "text", required: true },
          { prompt: "Would you come back?", type: "yes_no" },
        ],
      });
      const page = await browser.newPage();
      await page.goto(link.public_url);
      await page.getByLabel("What brought you here today?").waitFor();
      await page.waitForTimeout(1500);
      expect(await responsesOf(link.uuid)).toEqual([]);
      await page.reload();
      await page.getByLabel("What brought you here today?").waitFor();
      await page.waitForTimeout(500);
      expect(await responsesOf(link.uuid)).toEqual([]);

      const saved = page.waitForResponse((res) => res.request().method() === "PUT" && res.status() === 200);
      await page.getByLabel("What brought you here today?").fill("A friend told me");
      await page.getByLabel("What brought you here today?").blur();
      await saved;
      const started = await responsesOf(link.uuid);
      expect(started).toHaveLength(1);
      expect(started[0].status).toBe("started");

      await page.reload();
      // The page resumes once it has read the session back (a request after load).
      const comeBack = page.getByLabel("Would you come back?").or(page.getByRole("radiogroup", { name: "Would you come back?" }));
      await comeBack.first().waitFor();
      expect(await comeBack.count()).toBe(1);
      await page.getByRole("button", { name: "Back" }).click();
      expect(await page.getByLabel("What brought you here today?").inputValue()).toBe("A friend told me");
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("radio", { name: "Yes" }).check();
      await page.getByRole("button", { name: "Submit" }).click();
      await page.getByText("Thanks for your response!").waitFor();
      const after = await responsesOf(link.uuid);
      expect(after).toHaveLength(1);
      expect(after[0].uuid).toBe(started[0].uuid);
      expect(after[0].status).toBe("completed");
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "after a refused microphone, Try the microphone again records; the preview shows the length",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Microphone",
        questions: [{ prompt: "Tell us in your own words", type: "voice_text_fallback", required: true, configuration: { max_duration: 30 } }],
      });
      const context = await launchWithMicrophonePrompt();
      try {
        const page = await context.newPage();
        await page.goto(link.public_url);
        await page.getByRole("button", { name: "Record answer" }).click();
        // Refused: the typed fallback, with a way back to the microphone.
        await page.getByRole("textbox", { name: "Tell us in your own words" }).waitFor({ timeout: STEP_MS });
        await page.getByText("Microphone access was refused.").waitFor();
        const retry = page.getByRole("button", { name: "Try the microphone again" });
        await retry.click();
        // Wait for this retry's own outcome (its hint, the button enabled again): the refusal text
        // is already on the page, and granting the permission while this request is still pending
        // would let it succeed and take the retry button away before the second click.
        await page.getByText("Allow the microphone for this page in your browser, then try again.", { exact: false }).waitFor({ timeout: STEP_MS });
        expect(await retry.isEnabled()).toBe(true);
        expect(await page.getByRole("button", { name: "Record answer" }).count()).toBe(0);
        await page.setViewportSize({ width: 390, height: 844 });
        await shoot(page, "mic-refused-390");

        await context.grantPermissions(["microphone"], { origin: new URL(link.public_url).origin });
        await retry.click();
        await page.getByRole("button", { name: "Record answer" }).click();
        await page.getByRole("button", { name: "Stop recording" }).waitFor();
        await page.waitForTimeout(2200);
        await page.getByRole("button", { name: "Stop recording" }).click();
        await page.getByText("Recording saved").waitFor({ timeout: STEP_MS });

        // The measured length (shown beside the player until the player knows it) and the player's own.
        expect((await page.locator(".record-preview .record-length").textContent())!).toMatch(/^0:0[2-3]$/);
        expect(await page.locator(".record-preview audio").getAttribute("aria-label")).toMatch(/^Your recording, 0:0[2-3]$/);
        // The player learns the WebM's duration too (no duration header: resolved by seeking).
        await page.waitForFunction(
          () => {
            const audio = document.querySelector<HTMLAudioElement>(".record-preview audio");
            return audio !== null && Number.isFinite(audio.duration) && audio.duration > 1 && audio.currentTime === 0;
          },
          undefined,
          { timeout: STEP_MS },
        );
        await shoot(page, "mic-saved-390");
        await page.setViewportSize({ width: 1280, height: 720 });
        await shoot(page, "mic-saved-1280");
      } finally {
        await context.close();
      }
    },
    TIMEOUT_MS,
  );
});
