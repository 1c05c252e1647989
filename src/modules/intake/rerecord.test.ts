/**
 * Issue 22 item 3: a new recording replaces everything derived from the old one. Record → probe/
 * (transcribes, writes `text`, asks a follow-up, which is answered by voice) → record again
 * (silence) → submit: the answer has no trace of the first transcript, its follow-ups or their
 * recordings, in the API and in the CSV export. Real database (both engines), real app, the real
 * inference worker with the fixture models ("This is a fixture transcript." for any sound, "" for
 * silence) and the real job runner.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import path from "node:path";
import fs from "node:fs";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { makeSpeechWav } from "../../../test/helpers/audio.ts";
import { storedBlobCount } from "../../../test/helpers/db.ts";
import { FIXTURE_TRANSCRIPT, startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { FIXTURE_MODELS_DIR } from "../../../test/helpers/fixtures.ts";
import { toneWav } from "../../../test/helpers/audio-fixtures.ts";
import { createInferenceClient, type InferenceClient } from "../../ai/inference-client.ts";
import { probeAnswer, type ProbingDeps } from "./probing.ts";
import { findIntakeLink } from "./service.ts";

let api: TestApi;
let inference: InferenceClient;
let speech: Uint8Array;
const silence = toneWav({ seconds: 1, rateHz: 16_000, amplitude: 0 });

beforeAll(async () => {
  api = await createTestApi();
  inference = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: "whisper-tiny-random", sentimentModel: "tiny-sentiment-3class" });
  speech = new Uint8Array(fs.readFileSync(await makeSpeechWav("the checkout page keeps crashing", path.join(api.dataDir, "speech.wav"))));
});
afterAll(async () => {
  await inference.close();
  await api.close();
});

async function newSession(name: string) {
  const created = await api.call("POST", "/api/v1/links/", {
    body: {
      name,
      questions: [{ prompt: "Tell us", type: "voice", enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 1, max_follow_ups: 2 } }],
    },
  });
  expect(created.status).toBe(201);
  const link = created.json;
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  const q = link.questions[0].uuid as string;
  const answerPath = `${base}/sessions/${sid}/answers/${q}`;
  const record = async (bytes: Uint8Array) => {
    const r = await api.call("POST", `${answerPath}/audio/`, { key: null, raw: bytes, headers: { "content-type": "audio/wav" } });
    expect(r.status).toBe(200);
    return r.json;
  };
  return { link, base, sid, q, answerPath, record };
}

test("re-recording after a probed, followed-up recording drops its transcript, follow-ups and their recordings (API, session and CSV)", async () => {
  const { link, base, sid, answerPath, record } = await newSession("Re-record");
  const blobsBefore = await storedBlobCount(api.db, api.config.blobsDir);
  await record(speech);
  const probe = await api.call("POST", `${answerPath}/probe/`, { key: null, body: {} });
  expect(probe.status).toBe(200);
  expect(probe.json.follow_up).toEqual({ index: 0, question: expect.any(String) });
  const followUp = await api.call("POST", `${answerPath}/follow-ups/0/audio/`, { key: null, raw: speech, headers: { "content-type": "audio/wav" } });
  expect(followUp.status).toBe(200);
  const before = (await api.call("GET", `${base}/sessions/${sid}/`, { key: null })).json.answers[link.questions[0].uuid];
  expect([before.text, before.transcription, before.follow_ups.length]).toEqual([FIXTURE_TRANSCRIPT, FIXTURE_TRANSCRIPT, 1]);
  expect(await storedBlobCount(api.db, api.config.blobsDir)).toBe(blobsBefore + 2);

  // The respondent records again: the new recording is the whole answer.
  const replaced = await record(silence);
  expect(replaced).toMatchObject({ text: null, transcription: null, transcription_status: "pending", follow_ups: [], has_audio: true });
  const resumed = (await api.call("GET", `${base}/sessions/${sid}/`, { key: null })).json.answers[link.questions[0].uuid];
  expect(resumed).toMatchObject({ text: null, transcription: null, follow_ups: [] });
  // The old recording and the follow-up's recording are gone; only the new one is stored.
  expect(await storedBlobCount(api.db, api.config.blobsDir)).toBe(blobsBefore + 1);

  expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  const processing = await startProcessing(api);
  try {
    const response = await waitFor(async () => {
      const list = await api.call("GET", `/api/v1/links/${link.uuid}/responses/`);
      const r = list.json.results[0];
      return r?.answers[0]?.transcription_status === "completed" ? r : null;
    });
    const answer = response.answers[0];
    expect(answer.transcription).toBe("");
    expect(answer.text ?? "").toBe("");
    expect(answer.follow_ups).toEqual([]);
    expect(answer.ai_insights ?? null).toBeNull();
    const csv = await api.call("GET", `/api/v1/links/${link.uuid}/responses/export/?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.text).not.toContain(FIXTURE_TRANSCRIPT);
    expect(csv.text).not.toContain(probe.json.follow_up.question);
  } finally {
    await processing.stop();
  }
}, 90_000);

test("a probe that was analysing the old recording when it was replaced adds no follow-up to the new one", async () => {
  const { link, sid, q, record } = await newSession("Re-record during probe");
  await record(speech);
  const analysing = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const deps: ProbingDeps = {
    db: api.db,
    blobs: api.deps.blobs,
    inference: {
      transcribe: (...args) => inference.transcribe(...args),
      analyse: async (...args) => {
        const result = await inference.analyse(...args);
        analysing.resolve();
        await gate.promise;
        return result;
      },
    },
  };
  const l = await findIntakeLink(api.db, api.ws.workspace_slug, link.slug);
  const probing = probeAnswer(deps, l, sid, q);
  await analysing.promise;
  await record(silence);
  gate.resolve();
  const result = await probing;
  expect(result.follow_up).toBeNull();
  const state = (await api.call("GET", `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}/sessions/${sid}/`, { key: null })).json.answers[q];
  expect(state).toMatchObject({ text: null, transcription: null, follow_ups: [] });
}, 60_000);
