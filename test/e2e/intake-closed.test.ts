/**
 * @module test/e2e/intake-closed.test
 * A closed link's intake page (issue 25, DESIGN §13, docs/intake.md "Closed links") against a real
 * server (from source) in Chromium: a link past its `close_at` says it is closed in German, one
 * that reached its `response_limit` says so in French, and a respondent who started before the
 * link closed reloads the page, still sees the form and submits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "./voice-flow.ts";

const TIMEOUT_MS = 120_000;
const PROMPT = "What should we change?";

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let wsSlug: string;
let browser: BrowserContext;

beforeAll(async () => {
  dataDir = await makeDataDir();
  const ws = await createWorkspace(dataDir);
  apiKey = ws.api_key;
  wsSlug = ws.workspace_slug;
  server = await startServer({ dataDir });
  browser = await launchBrowser({ microphone: false });
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await removeDir(dataDir);
});

/** A respondent's whole response through the intake API (no browser). */
async function submitOne(link: { slug: string; questions: { uuid: string }[] }): Promise<void> {
  const base = `${server.baseUrl}/api/v1/intake/${wsSlug}/${link.slug}`;
  const started = await fetch(`${base}/sessions/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  expect(started.status).toBe(201);
  const { session_id } = (await started.json()) as { session_id: string };
  const answer = await fetch(`${base}/sessions/${session_id}/answers/${link.questions[0]!.uuid}/`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ value: "Rien" }),
  });
  expect(answer.status).toBe(200);
  expect((await fetch(`${base}/sessions/${session_id}/submit/`, { method: "POST" })).status).toBe(200);
}

async function closedPage(url: string, language: string, context = browser) {
  const page = await context.newPage();
  await page.setExtraHTTPHeaders({ "accept-language": language });
  await page.goto(url);
  return page;
}

describe("a closed link's intake page", () => {
  test(
    "past close_at: the page says so in German, and shows no question",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Umfrage",
        settings: { close_at: "2020-01-01T00:00:00Z" },
        questions: [{ prompt: PROMPT, type: "text" }],
      });
      const page = await closedPage(link.public_url, "de-DE,de;q=0.9");
      try {
        await page.getByRole("heading", { name: "Geschlossen" }).waitFor();
        expect(await page.getAttribute("html", "lang")).toBe("de");
        expect(await page.textContent("body")).toContain("Dieses Formular ist geschlossen und nimmt keine neuen Antworten mehr an.");
        expect(await page.getByLabel(PROMPT).count()).toBe(0);
      } finally {
        await page.close();
      }
    },
    TIMEOUT_MS,
  );

  test(
    "response_limit reached: the page says so in French; a respondent who started before still submits after a reload",
    async () => {
      const link = await api(server, apiKey, "POST", "links/", {
        name: "Enquête",
        settings: { response_limit: 1, thankYouMessage: "Merci, c'est noté." },
        questions: [
          { prompt: PROMPT, type: "text", required: true },
          { prompt: "Anything else?", type: "text" },
        ],
      });
      // This respondent starts (the first saved answer starts the session) while the link is open.
      const early = await closedPage(link.public_url, "fr-FR,fr;q=0.9");
      try {
        await early.getByLabel(PROMPT).fill("Plus de couleurs");
        await early.getByRole("button", { name: "Suivant" }).click();
        await early.getByRole("button", { name: "Envoyer" }).waitFor();
        // Someone else fills the only place.
        await submitOne(link);
        // Another respondent (another browser profile: no stored session) finds the link closed.
        const other = await launchBrowser({ microphone: false });
        const late = await closedPage(link.public_url, "fr-FR,fr;q=0.9", other);
        try {
          await late.getByRole("heading", { name: "Fermé" }).waitFor();
          expect(await late.getAttribute("html", "lang")).toBe("fr");
          expect(await late.textContent("body")).toContain("Ce formulaire est fermé et n’accepte plus de nouvelles réponses.");
        } finally {
          await other.close();
        }
        // The early respondent reloads: the stored session resumes and submits.
        await early.reload();
        await early.getByRole("button", { name: "Envoyer" }).click();
        await early.getByText("Merci, c'est noté.").waitFor();
      } finally {
        await early.close();
      }
      const state = await api(server, apiKey, "GET", `links/${link.uuid}/`);
      expect(state).toMatchObject({ response_count: 2, is_closed: true, closed_reason: "response_limit" });
    },
    TIMEOUT_MS,
  );
});
