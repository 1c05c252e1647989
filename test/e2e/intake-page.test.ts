/**
 * @module test/e2e/intake-page.test
 * The intake page against a real server (from source) in Chromium without a microphone: all 11
 * question types through their accessible names (DESIGN §9), a condition that hides and shows a
 * question as the answer changes, client-side `required`, resuming after a reload, reading
 * prompts aloud (`tts_enabled`), the typed fallback of a voice question, and the stored values.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { answerTo, api, createWorkspace, listResponses, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const P = {
  text: "What brought you here today?",
  choice: "Which features do you use?",
  number: "How many people are on your team?",
  nps: "How likely are you to recommend us?",
  why: "What would make it a 10?",
  cards: "Pick a theme",
  email: "Your email address",
  date: "When did you start?",
  yesNo: "Would you use it again?",
  file: "Attach a screenshot",
  fallback: "Anything else? Speak or type.",
} as const;

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let link: { uuid: string; public_url: string };
let browser: BrowserContext;

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  const media = (name: string) => `http://localhost:${server.port}/test-media/${name}.png`;
  link = await api(server, apiKey, "POST", "links/", {
    name: "Every question type",
    settings: { thankYouMessage: "All done, thanks!", tts_enabled: true },
    questions: [
      { prompt: P.text, type: "text", required: true, field_key: "intro" },
      { prompt: P.choice, type: "multiple_choice", configuration: { options: ["Links", "Webhooks", "Exports"], allow_multiple: true } },
      { prompt: P.number, type: "number", configuration: { min: 1, max: 500, step: 1 } },
      { prompt: P.nps, type: "rating", required: true, field_key: "nps", configuration: { scale_type: "nps" } },
      { prompt: P.why, type: "text", required: true, condition: { show_if: "field_value", field: "nps", operator: "less_than", value: 7 } },
      {
        prompt: P.cards,
        type: "image_choice",
        configuration: {
          cards: [
            { id: "sea", label: "Sea", media_url: media("sea"), media_type: "image" },
            { id: "forest", label: "Forest", media_url: media("forest"), media_type: "image" },
          ],
        },
      },
      { prompt: P.email, type: "email" },
      { prompt: P.date, type: "date" },
      { prompt: P.yesNo, type: "yes_no", required: true },
      { prompt: P.file, type: "file_upload", configuration: { allowed_types: ["image/png"], max_size_mb: 1 } },
      { prompt: P.fallback, type: "voice_text_fallback", configuration: { max_duration: 60, max_characters: 300 } },
    ],
  });
  // No fake devices: this browser has no microphone at all.
  browser = await launchBrowser({ microphone: false });
  await browser.addInitScript(() => {
    const spoken: string[] = [];
    (window as unknown as { __spoken: string[] }).__spoken = spoken;
    const synth = window.speechSynthesis;
    if (!synth) return;
    const speak = synth.speak.bind(synth);
    synth.speak = (utterance: SpeechSynthesisUtterance) => {
      spoken.push(utterance.text);
      speak(utterance);
    };
  });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

const next = (page: Page) => page.getByRole("button", { name: "Next" }).click();

describe("intake page against the real server", () => {
  test(
    "all 11 types, conditions, required, resume, TTS and text fallback",
    async () => {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on("pageerror", (err) => pageErrors.push(err.message));

      await page.goto(link.public_url);
      await page.getByLabel(P.text).waitFor();
      expect(await page.evaluate(() => (window as unknown as { __spoken: string[] }).__spoken)).toContain(P.text);

      // required is enforced before leaving the question
      await next(page);
      await expect(page.getByRole("alert").textContent()).resolves.toContain("answer this question");
      await page.getByLabel(P.text).fill("A colleague's recommendation");
      await next(page);

      await page.getByRole("group", { name: P.choice }).getByRole("checkbox", { name: "Webhooks" }).check();
      await page.getByRole("checkbox", { name: "Exports" }).check();
      await next(page);

      const number = page.getByLabel(P.number);
      await number.fill("900");
      await next(page);
      await expect(page.getByRole("alert").textContent()).resolves.toContain("500");
      await number.fill("12");
      await next(page);

      // nps 5 < 7 shows the follow-up question; 9 hides it again
      await page.getByRole("radiogroup", { name: P.nps }).getByRole("radio", { name: "5", exact: true }).check();
      await next(page);
      await page.getByLabel(P.why).fill("Faster exports");
      await page.getByRole("button", { name: "Back" }).click();
      await page.getByRole("radio", { name: "9", exact: true }).check();
      await next(page);

      await page.getByRole("radiogroup", { name: P.cards }).getByRole("radio", { name: "Forest" }).check();
      await next(page);
      await page.getByLabel(P.email).fill("ann@example.com");
      await next(page);
      await page.getByLabel(P.date).fill("2024-05-01");
      await next(page);
      await page.getByRole("radiogroup", { name: P.yesNo }).getByRole("radio", { name: "Yes" }).check();
      await next(page);
      const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
      await page.getByLabel(P.file).setInputFiles({ name: "screen.png", mimeType: "image/png", buffer: png });
      await page.getByText("Uploaded: screen.png").waitFor();

      // a reload resumes the session on the first unanswered question
      await page.reload();
      await page.getByRole("group", { name: P.fallback }).or(page.getByLabel(P.fallback)).first().waitFor();
      await page.getByRole("button", { name: "Back" }).click();
      await page.getByText("Uploaded: screen.png").waitFor();
      await next(page);

      // no microphone: the voice question offers a textarea labelled by its prompt
      const fallback = page.getByRole("textbox", { name: P.fallback });
      await fallback.waitFor();
      await fallback.fill("Keep it simple.");
      await page.getByRole("button", { name: "Submit" }).click();
      await page.getByText("All done, thanks!").waitFor();
      expect(pageErrors).toEqual([]);

      const [response] = await listResponses(server, apiKey, link.uuid);
      expect(response.status).toBe("completed");
      expect(response.respondent_email).toBe("ann@example.com");
      expect(answerTo(response, P.text).value).toBe("A colleague's recommendation");
      expect(answerTo(response, P.choice).value).toEqual(["Webhooks", "Exports"]);
      expect(answerTo(response, P.number).value).toBe(12);
      expect(answerTo(response, P.nps).value).toBe(9);
      expect(answerTo(response, P.nps).rating_details).toEqual({ value: 9, max_value: 10, scale_type: "nps" });
      expect(answerTo(response, P.cards).selected_card).toMatchObject({ card_id: "forest", label: "Forest", media_type: "image" });
      expect(answerTo(response, P.date).value).toBe("2024-05-01");
      expect(answerTo(response, P.yesNo).value).toBe(true);
      expect(answerTo(response, P.file).file).toMatchObject({ name: "screen.png", size: png.length });
      const typed = answerTo(response, P.fallback);
      expect(typed.value).toBe("Keep it simple.");
      expect(typed.audio_url).toBeNull();
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "page shell: local assets only, hostile names escaped, paused and unknown links",
    async () => {
      const hostile = `Evil </script><script>window.__pwned = 1</script> & "quotes"`;
      const evil = await api(server, apiKey, "POST", "links/", {
        name: hostile,
        slug: "hostile",
        settings: { description: "<img src=x onerror=window.__pwned=2>" },
        questions: [{ prompt: "</script><b>Still text?</b>", type: "text" }],
      });
      const html = await (await fetch(evil.public_url)).text();
      expect(html).not.toContain("<script>window.__pwned");
      expect(html).not.toContain("<img src=x");
      // every src/href is local (no CDN, no third-party fonts or scripts; DESIGN §9)
      for (const [, url] of html.matchAll(/(?:src|href)="([^"]*)"/g)) expect(url).toMatch(/^(\/|data:)/);
      for (const asset of ["/assets/intake.js", "/assets/intake.css"]) {
        const res = await fetch(`${server.baseUrl}${asset}`);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toContain(asset.endsWith(".js") ? "javascript" : "text/css");
        expect(await res.text()).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
      }

      const page = await browser.newPage();
      await page.goto(evil.public_url);
      await page.getByLabel("</script><b>Still text?</b>").waitFor();
      expect(await page.title()).toBe(hostile);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

      await api(server, apiKey, "PATCH", `links/${evil.uuid}/`, { status: "paused" });
      const paused = await fetch(evil.public_url);
      expect(paused.status).toBe(200);
      const pausedHtml = await paused.text();
      expect(pausedHtml).toContain("not accepting responses");
      expect(pausedHtml).not.toContain("/assets/intake.js");

      const unknown = await fetch(evil.public_url.replace(/\/i\/[^/]+$/, "/i/no-such-link"));
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toContain("<h1");
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "voice: stops by itself at max_duration; voice-only questions offer no textarea",
    async () => {
      const voiceLink = await api(server, apiKey, "POST", "links/", {
        name: "Short voice",
        questions: [{ prompt: "Say it in two seconds", type: "voice", required: true, fallback_to_text: false, configuration: { max_duration: 2 } }],
      });

      // Without a microphone a voice-only question explains itself and offers no text field.
      const noMic = await browser.newPage();
      await noMic.goto(voiceLink.public_url);
      await noMic.getByRole("group", { name: "Say it in two seconds" }).waitFor();
      await noMic.getByRole("button", { name: "Record" }).click();
      await noMic.getByText("needs a voice answer").waitFor();
      expect(await noMic.getByRole("textbox").count()).toBe(0);
      await noMic.close();

      const withMic = await launchBrowser();
      try {
        const page = await withMic.newPage();
        await page.goto(voiceLink.public_url);
        await page.getByRole("button", { name: "Record" }).click();
        await page.getByRole("button", { name: "Stop" }).waitFor();
        await page.getByText("Recording saved").waitFor({ timeout: 10_000 });
        await page.getByRole("button", { name: "Submit" }).click();
        await page.getByText("Thanks for your response!").waitFor();
      } finally {
        await withMic.close();
      }
      const [response] = await listResponses(server, apiKey, voiceLink.uuid);
      const voice = answerTo(response, "Say it in two seconds");
      expect(voice.audio_url).toMatch(/^http/);
      expect(voice.duration).toBeGreaterThan(1.5);
      expect(voice.duration).toBeLessThanOrEqual(2);
    },
    TIMEOUT_MS,
  );
});
