/**
 * @module intake/consent.test
 * Consent (issue 25, DESIGN §13, docs/api.md "Consent") over real HTTP on a manual clock:
 * `settings.consent` is validated and translatable; with `required_before: "recording"` a recording
 * (upload) is refused with 409 CONSENT_REQUIRED until the session agrees, typed answers are not;
 * with `"start"` the session itself needs it; the response records when and the SHA-256 of the
 * text shown (source or translation). Runs on both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createManualClock, type ManualClock } from "../../clock.ts";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { makeSpeechWav } from "../../../test/helpers/audio.ts";
import { rawUpgrade } from "../../../test/helpers/raw-http.ts";

const TEXT = "I agree that my voice is recorded and kept for 30 days.";
const TEXT_DE = "Ich bin einverstanden, dass meine Stimme aufgenommen und 30 Tage lang aufbewahrt wird.";
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

let api: TestApi;
let clock: ManualClock;
let origin: string;
/** One request over a real socket; 2xx JSON answers are checked against the OpenAPI document. */
let http: TestApi["call"];
let wav: Uint8Array;

beforeAll(async () => {
  clock = createManualClock(Date.UTC(2026, 11, 1, 9, 30, 0));
  api = await createTestApi({}, "enterprise", { clock });
  ({ origin, call: http } = api.listen());
  wav = new Uint8Array(fs.readFileSync(await makeSpeechWav("yes I agree", path.join(api.dataDir, "speech.wav"))));
});
afterAll(() => api.close());

async function newLink(consent: unknown, translations: unknown = {}) {
  const r = await http("POST", "/api/v1/links/", {
    body: {
      name: "Consent",
      settings: { consent },
      translations,
      questions: [
        { prompt: "Tell us", type: "voice_text_fallback" },
        { prompt: "Say it", type: "voice" },
      ],
    },
  });
  expect(r.status).toBe(201);
  return r.json;
}
const intake = (link: { slug: string }) => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
const upload = (link: any, sid: string, i: number) =>
  http("POST", `${intake(link)}/sessions/${sid}/answers/${link.questions[i].uuid}/audio/?duration=1`, {
    raw: wav,
    key: null,
    headers: { "content-type": "audio/wav" },
  });

describe("consent", () => {
  test("settings.consent and its translations are validated", async () => {
    for (const [body, pointer] of [
      [{ name: "x", settings: { consent: { text: " " } } }, "/settings/consent/text"],
      [{ name: "x", settings: { consent: { text: "ok", required_before: "later" } } }, "/settings/consent/required_before"],
      [{ name: "x", settings: { consent: { text: "ok", extra: 1 } } }, "/settings/consent/extra"],
      [{ name: "x", settings: { consent: "I agree" } }, "/settings/consent"],
      [{ name: "x", settings: { consent: { text: "x".repeat(5001) } } }, "/settings/consent/text"],
      [{ name: "x", translations: { de: { consent: "Ja" } } }, "/translations/de/consent"],
    ] as const) {
      const r = await http("POST", "/api/v1/links/", { body });
      expect(r.status).toBe(400);
      expect(r.json.code).toBe("VALIDATION_ERROR");
      expect(r.json.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
    const link = await newLink({ text: TEXT });
    expect(link.settings.consent).toEqual({ text: TEXT, required_before: "recording" });
  });

  test('"recording": a recording is refused until the session agrees; typed answers are not; the response records hash and time', async () => {
    const link = await newLink({ text: TEXT, required_before: "recording" }, { de: { consent: TEXT_DE } });
    const started = await http("POST", `${intake(link)}/sessions/`, { body: {}, key: null });
    expect(started.status).toBe(201);
    expect(started.json.consent).toBeNull();
    const sid = started.json.session_id;

    const refused = await upload(link, sid, 1);
    expect(refused.status).toBe(409);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(refused.json.code).toBe("CONSENT_REQUIRED");
    // Declining still lets the respondent type where the question allows it.
    expect(
      (await http("PUT", `${intake(link)}/sessions/${sid}/answers/${link.questions[0].uuid}/`, { body: { value: "typed instead" }, key: null })).status,
    ).toBe(200);

    for (const [body, pointer] of [
      [{ language: "not a tag!" }, "/language"],
      [{ text_sha256: "x" }, "/text_sha256"],
    ] as const) {
      const bad = await http("POST", `${intake(link)}/sessions/${sid}/consent/`, { body, key: null });
      expect(bad.status).toBe(400);
      expect(bad.json.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
    const given = await http("POST", `${intake(link)}/sessions/${sid}/consent/`, { body: { language: "de-AT" }, key: null });
    expect(given.status).toBe(200);
    expect(given.json).toEqual({ given_at: "2026-12-01T09:30:00.000000Z".slice(0, 20) + given.json.given_at.slice(20), text_sha256: sha(TEXT_DE) });
    expect(given.json.given_at.startsWith("2026-12-01T09:30:00.")).toBe(true);
    expect((await http("GET", `${intake(link)}/sessions/${sid}/`, { key: null })).json.consent).toEqual(given.json);

    expect((await upload(link, sid, 1)).status).toBe(200);
    expect((await http("POST", `${intake(link)}/sessions/${sid}/submit/`, { key: null })).status).toBe(200);
    const response = (await http("GET", `/api/v1/responses/${started.json.response_uuid}/`)).json;
    expect(response.consent).toEqual(given.json);
  });

  test('"recording": the live-transcription socket is refused (409 CONSENT_REQUIRED) before consent and opens after', async () => {
    const r = await http("POST", "/api/v1/links/", {
      body: { name: "Live consent", settings: { consent: { text: TEXT }, live_transcription: true }, questions: [{ prompt: "Say it", type: "voice" }] },
    });
    const link = r.json;
    const sid = (await http("POST", `${intake(link)}/sessions/`, { body: {}, key: null })).json.session_id;
    const port = Number(new URL(origin).port);
    const refused = await rawUpgrade(port, `${intake(link)}/sessions/${sid}/live/`);
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body).code).toBe("CONSENT_REQUIRED");
    expect((await http("POST", `${intake(link)}/sessions/${sid}/consent/`, { key: null })).status).toBe(200);
    const open = await rawUpgrade(port, `${intake(link)}/sessions/${sid}/live/`);
    expect(open.status).toBe(101);
    open.close();
  });

  test('"start": the session needs consent (409 CONSENT_REQUIRED without it); the source text is hashed without a language', async () => {
    const link = await newLink({ text: TEXT, required_before: "start" });
    for (const body of [undefined, {}]) {
      const r = await http("POST", `${intake(link)}/sessions/`, { body, key: null });
      expect(r.status).toBe(409);
      expect(r.json.code).toBe("CONSENT_REQUIRED");
    }
    const unknown = await http("POST", `${intake(link)}/sessions/`, { body: { agree: true }, key: null });
    expect(unknown.status).toBe(400);
    clock.advance(5000);
    const started = await http("POST", `${intake(link)}/sessions/`, { body: { consent: {} }, key: null });
    expect(started.status).toBe(201);
    expect(started.json.consent).toMatchObject({ text_sha256: sha(TEXT) });
    expect(started.json.consent.given_at.startsWith("2026-12-01T09:30:05.")).toBe(true);
    expect((await upload(link, started.json.session_id, 1)).status).toBe(200);
  });

  test("a link without consent: nothing is asked, the response's consent is null, and agreeing is refused", async () => {
    const link = await newLink(null);
    const started = await http("POST", `${intake(link)}/sessions/`, { key: null });
    expect(started.status).toBe(201);
    expect(started.json.consent).toBeNull();
    expect((await upload(link, started.json.session_id, 1)).status).toBe(200);
    const refused = await http("POST", `${intake(link)}/sessions/${started.json.session_id}/consent/`, { body: {}, key: null });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe("VALIDATION_ERROR");
    expect((await http("GET", `/api/v1/responses/${started.json.response_uuid}/`)).json.consent).toBeNull();
  });
});
