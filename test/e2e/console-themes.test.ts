/**
 * @module test/e2e/console-themes.test
 * The console's Themes view in Chromium against a real server (issue 24, DESIGN §12): a link
 * whose one open question was answered by voice (espeak-ng WAVs through the intake API,
 * transcribed by the fixture Whisper) and by typing → the dashboard's "Top themes" and "What
 * changed" → the Themes view ranks the themes → "Play quote" plays exactly the quote's span
 * (seek to `start_s`, paused at `end_s`) → "Rename theme" → "Merge theme" → "New theme" → "Show
 * these answers" opens the inbox filtered by the theme, with the API's own `theme=` answer → an
 * answer is moved to another theme from its response page. Every page passes axe at 1280 and
 * 390 px, light and dark, without sideways scrolling (screenshots under test-results/console/).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { makeSpeechWav } from "../helpers/audio.ts";
import { apiWrite as apiCall, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";
import { expectAccessible, expectKeyboardReachable, SCREENSHOT_DIR, shootAll } from "./console-walk.ts";

const TIMEOUT_MS = 300_000;
const PROMPT = "What got in your way at checkout?";
const VOICES = 4;
/** Typed answers in three groups a person would name: shipping costs, a slow checkout, support. */
const TYPED = [
  "The shipping cost was hidden until the last step",
  "Shipping fees appeared only at checkout, very annoying",
  "Hidden shipping costs made me abandon my cart",
  "Shipping was too expensive for such a small order",
  "The shipping fee surprised me at the final step",
  "Why is shipping so expensive? It was not shown earlier",
  "The shipping price is shown far too late",
  "High shipping costs added at the very end",
  "The checkout page was very slow to load",
  "Payment took forever to go through",
  "The checkout froze while paying with my card",
  "Checkout is slow and the spinner never stops",
  "It took ages for the payment step to finish",
  "Loading the payment page was painfully slow",
  "The card payment kept timing out, so slow",
  "Very slow checkout, I almost gave up",
  "Support answered quickly and kindly",
  "The support team was friendly and helpful",
  "Great customer support, they solved my problem",
  "Support staff were patient and helpful",
  "Customer support replied within minutes, very helpful",
  "The support desk was friendly and fast",
  "A friendly support agent fixed my order",
  "Friendly and helpful support, thank you",
];

/** Polls `read` until `pred` holds. */
async function eventually<T>(read: () => Promise<T>, pred: (v: T) => boolean, what: string, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (pred(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await Bun.sleep(300);
  }
}

async function apiGet(page: Page, apiPath: string): Promise<any> {
  const r = await apiCall(page, "GET", apiPath);
  if (r.status !== 200) throw new Error(`GET ${apiPath}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** One respondent through the public intake API: a typed answer, or a recording. */
async function respond(base: string, questionUuid: string, answer: { text: string } | { wav: Blob }): Promise<void> {
  const call = async (method: string, p: string, body: BodyInit, type: string) => {
    const res = await fetch(`${base}${p}`, { method, headers: { "content-type": type }, body });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const session = await call("POST", "sessions/", "{}", "application/json");
  const s = `sessions/${session.session_id}/`;
  if ("text" in answer) await call("PUT", `${s}answers/${questionUuid}/`, JSON.stringify({ value: answer.text }), "application/json");
  else await call("POST", `${s}answers/${questionUuid}/audio/`, answer.wav, "audio/wav");
  await call("POST", `${s}submit/`, "{}", "application/json");
}

/** The card of the theme named `label`. */
function card(page: Page, label: string): Locator {
  return page.getByRole("article", { name: label, exact: true });
}

describe("console: Themes view", () => {
  let session: ConsoleOwner;
  let dataDir: string;
  let page: Page;
  let origin: string;
  let link: any;

  beforeAll(async () => {
    session = await openConsoleAsOwner({
      env: { EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" },
      browser: { microphone: false, bypassCSP: true },
      viewport: { width: 1280, height: 900 },
    });
    ({ dataDir, page, origin } = session);
  }, 60_000);
  afterAll(async () => {
    await session?.close();
  });

  test(
    "themes of voice and typed answers: play a quote's span, rename, merge, new theme, the inbox by theme, move an answer",
    async () => {
      const created = await apiCall(page, "POST", "links/", {
        name: "Checkout feedback",
        slug: "checkout-feedback",
        questions: [{ prompt: PROMPT, type: "voice_text_fallback", required: true, configuration: { max_duration: 30 } }],
      });
      expect(created.status).toBe(201);
      link = created.body;
      const question = link.questions[0].uuid as string;
      const slug = new URL(link.public_url).pathname.split("/")[2];
      const base = `${origin}/api/v1/intake/${slug}/${link.slug}/`;
      const wav = Bun.file(await makeSpeechWav("The checkout was slow, and the shipping cost appeared at the very end.", path.join(dataDir, "speech.wav")));
      for (let i = 0; i < VOICES; i++) await respond(base, question, { wav });
      for (const text of TYPED) await respond(base, question, { text });

      // Every answer analysed (the voice ones transcribed first), then themes built from all of them.
      const total = VOICES + TYPED.length;
      await eventually(
        () => apiGet(page, `links/${link.uuid}/themes/status/`),
        (s) => s.answers_pending === 0 && s.answers_total === total,
        "themes status",
        180_000,
      );
      expect((await apiCall(page, "POST", `links/${link.uuid}/themes/rebuild/`, {})).status).toBe(202);
      const themes = await eventually(
        async () => {
          const s = await apiGet(page, `links/${link.uuid}/themes/status/`);
          return s.state === "ready" ? (await apiGet(page, `links/${link.uuid}/themes/?page_size=100`)).results : [];
        },
        (t: any[]) => t.length >= 3,
        "themes",
      );

      // The dashboard: "Top themes" (largest first, each opening the inbox by theme) and "What changed".
      await page.goto(`${origin}/console/links/${link.uuid}/dashboard/`);
      const top = page.getByRole("region", { name: "Top themes" });
      await top.getByRole("link", { name: new RegExp(`^${themes[0].label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: ${themes[0].size} answers`) }).waitFor();
      const changed = page.getByRole("region", { name: "What changed" });
      await eventually(
        async () => (await changed.locator("dd").first().textContent())?.replace(/\s+/g, " ").trim(),
        (t) => t === `${total} (none before)`,
        "What changed: responses",
        10_000,
      );
      await shootAll(page, "themes-dashboard", true);

      // The Themes view: every theme as a card, ranked by size.
      await top.getByRole("link", { name: "All themes" }).click();
      await page.getByRole("heading", { level: 1, name: "Themes: Checkout feedback" }).waitFor();
      await page
        .locator("article.theme")
        .nth(themes.length - 1)
        .waitFor();
      const headings = await page.locator("article.theme h2").allTextContents();
      expect(headings).toEqual([...themes].sort((a, b) => b.size - a.size || a.label.localeCompare(b.label)).map((t: any) => t.label));
      await shootAll(page, "themes", true);
      await expectKeyboardReachable(page, "Themes");

      // "Play quote" plays exactly the quote's span of the recording.
      const voiced = themes.find((t: any) => t.quotes.some((q: any) => q.audio_url && q.start_s !== null && q.end_s > q.start_s));
      expect(voiced).toBeDefined();
      const quote = voiced.quotes.find((q: any) => q.audio_url && q.start_s !== null);
      const qi = voiced.quotes.filter((q: any) => q.audio_url && q.start_s !== null).indexOf(quote);
      const play = card(page, voiced.label).getByRole("button", { name: "Play quote" }).nth(qi);
      const audioEl = card(page, voiced.label).locator("audio[data-quote]").nth(qi);
      await audioEl.evaluate((audio: HTMLAudioElement) => {
        const w = window as unknown as { quoteLog: { event: string; t: number }[] };
        w.quoteLog = [];
        for (const event of ["playing", "pause"]) audio.addEventListener(event, () => w.quoteLog.push({ event, t: audio.currentTime }));
      });
      await play.click();
      await card(page, voiced.label).getByRole("button", { name: "Stop quote" }).waitFor();
      await eventually(
        () => page.evaluate(() => (window as unknown as { quoteLog: { event: string }[] }).quoteLog.map((e) => e.event)),
        (events) => events.includes("pause"),
        "the quote to stop",
        30_000,
      );
      const log: { event: string; t: number }[] = await page.evaluate(() => (window as unknown as { quoteLog: { event: string; t: number }[] }).quoteLog);
      expect(log[0]!.event).toBe("playing");
      expect(Math.abs(log[0]!.t - quote.start_s)).toBeLessThan(0.05);
      const stop = log.find((e) => e.event === "pause")!;
      expect(stop.t).toBeGreaterThanOrEqual(quote.end_s);
      expect(stop.t).toBeLessThan(quote.end_s + 0.25);
      await card(page, voiced.label).getByRole("button", { name: "Play quote" }).nth(qi).waitFor();

      // "Rename theme": the new name, kept on rebuilds.
      // The theme the slow-checkout answers formed is renamed, and the one of card payments merged
      // into it (whatever the engine named them; by size when it grouped them otherwise).
      const bySize = [...themes].sort((a, b) => b.size - a.size);
      const about = (re: RegExp, not: any[] = []) => themes.find((t: any) => !not.includes(t) && t.quotes.some((q: any) => re.test(q.text)));
      const first = about(/slow|forever|ages/i) ?? bySize[0];
      const second = about(/payment|card|timing out/i, [first]) ?? bySize.find((t: any) => t !== first);
      await card(page, first.label).getByRole("button", { name: "Rename theme" }).click();
      const rename = page.getByRole("dialog", { name: "Rename theme" });
      await rename.getByLabel("Theme name").fill("Slow checkout and payment");
      await expect(rename.getByLabel("Keep this name when themes are rebuilt").isChecked()).resolves.toBe(true);
      await rename.getByRole("button", { name: "Save name" }).click();
      await card(page, "Slow checkout and payment").waitFor();
      const renamed = await apiGet(page, `links/${link.uuid}/themes/${first.uuid}/`);
      expect({ label: renamed.label, pinned: renamed.pinned, source: renamed.label_source }).toEqual({
        label: "Slow checkout and payment",
        pinned: true,
        source: "operator",
      });

      // "Merge theme": the other theme's answers join the renamed one.
      await card(page, second.label).getByRole("button", { name: "Merge theme" }).click();
      const merge = page.getByRole("dialog", { name: "Merge theme" });
      await merge.getByLabel("Merge into").selectOption(first.uuid);
      // The dialog as a phone and a desktop show it (the viewport: a modal sits in it, not in the page).
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 844 });
        await page.waitForTimeout(300);
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, `themes-merge-dialog-${width}.png`) });
        await expectAccessible(page, `merge dialog ${width}`);
      }
      await merge.getByRole("button", { name: "Merge themes" }).click();
      await card(page, second.label).waitFor({ state: "detached" });
      const merged = await apiGet(page, `links/${link.uuid}/themes/${first.uuid}/`);
      expect(merged.size).toBe(first.size + second.size);
      await card(page, "Slow checkout and payment").getByText(`${merged.size} answers`, { exact: true }).waitFor();

      // "New theme": an operator's theme for the question.
      await page.getByRole("button", { name: "New theme" }).click();
      const add = page.getByRole("dialog", { name: "New theme" });
      await add.getByLabel("Theme name").fill("Pricing questions");
      await add.getByRole("button", { name: "Create theme" }).click();
      await card(page, "Pricing questions").waitFor();

      // "Show these answers": the inbox filtered by the theme, as the API filters it.
      await card(page, "Slow checkout and payment").getByRole("link", { name: "Show these answers" }).click();
      await page.getByRole("heading", { level: 1, name: "Responses to Checkout feedback" }).waitFor();
      expect(new URL(page.url()).searchParams.get("theme")).toBe(first.uuid);
      await page.getByText("Responses with an answer in the theme").waitFor();
      const byApi = await apiGet(page, `links/${link.uuid}/responses/?theme=${first.uuid}&page_size=100`);
      expect(byApi.count).toBe(merged.size);
      await page
        .getByRole("status")
        .filter({ hasText: `${byApi.count} responses match the filter.` })
        .waitFor();
      const rows = await page.locator("table.inbox tbody tr td.gist").allTextContents();
      const expected = byApi.results.map((r: any) => {
        const a = r.answers[0];
        const t = String(a.transcription ?? a.text ?? "");
        return t.length > 140 ? `${t.slice(0, 140)}…` : t;
      });
      expect(rows.sort()).toEqual(expected.sort());
      await shootAll(page, "themes-inbox", true);

      // Move an answer from its response page to the new theme.
      await page.locator("table.inbox tbody tr").first().getByRole("link").click();
      await page.getByRole("heading", { level: 1, name: "Response" }).waitFor();
      const responseUuid = new URL(page.url()).pathname.split("/").at(-2)!;
      await page.getByRole("link", { name: "Slow checkout and payment", exact: true }).waitFor();
      await page.getByText("Move to another theme").click();
      const pricing = (await apiGet(page, `links/${link.uuid}/themes/?page_size=100`)).results.find((t: any) => t.label === "Pricing questions");
      await page.getByLabel("Move to theme").selectOption(pricing.uuid);
      await page.getByRole("button", { name: "Move answer" }).click();
      await page.getByText("Answer moved.").waitFor();
      const moved = await apiGet(page, `responses/${responseUuid}/`);
      expect(moved.answers[0].theme).toEqual({ uuid: pricing.uuid, label: "Pricing questions" });
      await page.getByRole("link", { name: "Pricing questions", exact: true }).waitFor();
      await shootAll(page, "themes-response", true);
    },
    TIMEOUT_MS,
  );
});
