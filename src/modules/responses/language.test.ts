/**
 * Answers in the link's language (issue 17), end to end over a real SQLite file, the real app,
 * the real inference worker with the fixture models (an English-only Whisper and an English
 * sentiment model) and the real job runner:
 * - a recording on a German link is not transcribed by the English-only model: the answer's
 *   transcription fails with the operator's reason, and the response is still delivered;
 * - a recording on an English link is transcribed and stores `language: "en"`;
 * - a typed answer on a German link gets no English insights: `ai_insights` null,
 *   `analysis_status: "unsupported_language"`, `language: "de"`; on a link without a language it
 *   is analysed as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { $ } from "bun";
import fs from "node:fs";
import path from "node:path";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { FIXTURE_TRANSCRIPT, startProcessing, waitFor } from "../../../test/helpers/processing.ts";

let api: TestApi;
let processing: Awaited<ReturnType<typeof startProcessing>>;
let speech: Uint8Array;

beforeAll(async () => {
  api = await createTestApi();
  processing = await startProcessing(api);
  const file = path.join(api.dataDir, "speech.wav");
  await $`espeak-ng -w ${file} "the checkout page keeps crashing"`.quiet();
  speech = new Uint8Array(fs.readFileSync(file));
});
afterAll(async () => {
  await processing.stop();
  await api.close();
});

/** A link with one voice and one text question, answered and submitted; returns its answer rows once processed. */
async function answerLink(language: string | null, typed: string) {
  const r = await api.call("POST", "/api/v1/links/", {
    body: {
      name: `Language ${language}`,
      settings: language ? { language } : {},
      questions: [
        { prompt: "Tell us", type: "voice", fallback_to_text: false },
        { prompt: "Anything else?", type: "text" },
      ],
    },
  });
  expect(r.status).toBe(201);
  const link = r.json;
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  const audio = await api.call("POST", `${base}/sessions/${sid}/answers/${link.questions[0].uuid}/audio/`, {
    key: null,
    raw: speech,
    headers: { "content-type": "audio/wav" },
  });
  expect(audio.status).toBe(200);
  expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${link.questions[1].uuid}/`, { key: null, body: { value: typed } })).status).toBe(200);
  expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  const response = await api.db.selectFrom("responses").selectAll().where("session_id", "=", sid).executeTakeFirstOrThrow();
  await waitFor(
    async () => (await api.db.selectFrom("responses").select("submitted_event_at").where("uuid", "=", response.uuid).executeTakeFirst())?.submitted_event_at,
    60_000,
    "the response to be delivered",
  );
  const rows = await api.db.selectFrom("answers").selectAll().where("response_uuid", "=", response.uuid).execute();
  return { voice: rows.find((a) => a.question_uuid === link.questions[0].uuid)!, text: rows.find((a) => a.question_uuid === link.questions[1].uuid)! };
}

describe("answers in the link's language", () => {
  test("German link, English-only models: no transcript, no English insights, and the reasons", async () => {
    const { voice, text } = await answerLink("de", "Der Export ist viel zu langsam und stürzt ständig ab.");
    expect([voice.transcription_status, voice.transcription]).toEqual(["failed", null]);
    expect(voice.transcription_error).toContain('transcribes English only, and this link\'s language is "de"');
    expect([text.analysis_status, text.ai_insights, text.language]).toEqual(["unsupported_language", null, "de"]);
    // The API's answer record says the same.
    const listed = (await api.call("GET", `/api/v1/responses/${text.response_uuid}/`)).json;
    const record = listed.answers.find((a: { uuid: string }) => a.uuid === text.uuid);
    expect([record.analysis_status, record.ai_insights, record.language]).toEqual(["unsupported_language", null, "de"]);
  }, 90_000);

  test("English link: transcribed with the link's language, insights as before", async () => {
    const { voice, text } = await answerLink("en-GB", "The export is far too slow and keeps crashing.");
    expect([voice.transcription_status, voice.transcription, voice.language]).toEqual(["completed", FIXTURE_TRANSCRIPT, "en"]);
    expect(voice.analysis_status).toBe("completed");
    expect([text.analysis_status, text.language]).toEqual(["completed", "en-GB"]);
    expect(JSON.parse(text.ai_insights!).sentiment).toBeString();
  }, 90_000);

  test("a link without a language: typed answers are analysed as English, language stays unknown", async () => {
    const { text } = await answerLink(null, "Great product, thanks!");
    expect([text.analysis_status, text.language]).toEqual(["completed", null]);
  }, 90_000);
});
