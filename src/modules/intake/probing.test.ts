/**
 * Bounds on dynamic probing (security review finding 12; docs/intake.md "Limits"): a session may
 * ask for at most SESSION_PROBES_PER_MINUTE probes that transcribe or analyse (429 after);
 * parallel probes of one recording share one transcription; a finished transcript — an empty one
 * included — is never transcribed again. The inference client is the real worker over the fixture
 * models, wrapped only to count its calls.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import path from "node:path";
import fs from "node:fs";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { makeSpeechWav } from "../../../test/helpers/audio.ts";
import { createInferenceClient, type InferenceClient } from "../../ai/inference-client.ts";
import { nowIso } from "../../clock.ts";
import { SESSION_PROBES_PER_MINUTE } from "./limits.ts";
import { probeAnswer, type ProbingDeps } from "./probing.ts";
import { findIntakeLink } from "./service.ts";
import { FIXTURE_MODELS_DIR } from "../../../test/helpers/fixtures.ts";

let api: TestApi;
let inference: InferenceClient;
let wav: Uint8Array;
let link: any;
const calls = { transcribe: 0, analyse: 0 };
let deps: ProbingDeps;
const base = () => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;

beforeAll(async () => {
  api = await createTestApi();
  inference = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: "whisper-tiny-random", sentimentModel: "tiny-sentiment-3class" });
  const counted: ProbingDeps["inference"] = {
    transcribe: (...args) => (calls.transcribe++, inference.transcribe(...args)),
    analyse: (...args) => (calls.analyse++, inference.analyse(...args)),
  };
  deps = { db: api.db, blobs: api.deps.blobs, inference: counted };
  wav = new Uint8Array(fs.readFileSync(await makeSpeechWav("the checkout page keeps crashing", path.join(api.dataDir, "probe.wav"))));
  link = (
    await api.call("POST", "/api/v1/links/", {
      body: {
        name: "Probe limits",
        questions: [
          // Threshold 0: never clear enough to stop, never a follow-up — every probe analyses.
          { prompt: "What could we do better?", type: "text", enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 0, max_follow_ups: 1 } },
          { prompt: "Tell us", type: "voice", enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 0, max_follow_ups: 1 } },
        ],
      },
    })
  ).json;
});
afterAll(async () => {
  await inference.close();
  await api.close();
});

async function session(): Promise<string> {
  const r = await api.call("POST", `${base()}/sessions/`, { key: null, body: {} });
  expect(r.status).toBe(201);
  return r.json.session_id;
}

async function recorded(sid: string): Promise<void> {
  const r = await api.call("POST", `${base()}/sessions/${sid}/answers/${link.questions[1].uuid}/audio/`, {
    key: null,
    raw: wav,
    headers: { "content-type": "audio/wav" },
  });
  expect(r.status).toBe(200);
}

test(`past ${SESSION_PROBES_PER_MINUTE} probes of a session within a minute, the next gets 429 with Retry-After; other sessions are not affected`, async () => {
  const sid = await session();
  const q = link.questions[0].uuid;
  expect((await api.call("PUT", `${base()}/sessions/${sid}/answers/${q}/`, { key: null, body: { value: "stuff, i guess" } })).status).toBe(200);
  for (let i = 0; i < SESSION_PROBES_PER_MINUTE; i++) {
    expect((await api.call("POST", `${base()}/sessions/${sid}/answers/${q}/probe/`, { key: null, body: {} })).status).toBe(200);
  }
  const refused = await api.call("POST", `${base()}/sessions/${sid}/answers/${q}/probe/`, { key: null, body: {} });
  expect([refused.status, refused.json.code]).toEqual([429, "RATE_LIMITED"]);
  expect(refused.headers.get("content-type")).toContain("application/problem+json");
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  const other = await session();
  expect((await api.call("PUT", `${base()}/sessions/${other}/answers/${q}/`, { key: null, body: { value: "meh" } })).status).toBe(200);
  expect((await api.call("POST", `${base()}/sessions/${other}/answers/${q}/probe/`, { key: null, body: {} })).status).toBe(200);
}, 60_000);

test("parallel probes of one recording transcribe it once; a stored transcript is not transcribed again", async () => {
  const sid = await session();
  await recorded(sid);
  const l = await findIntakeLink(api.db, api.ws.workspace_slug, link.slug);
  calls.transcribe = 0;
  const results = await Promise.all(Array.from({ length: 5 }, () => probeAnswer(deps, l, sid, link.questions[1].uuid)));
  expect(results.every((r) => r.follow_ups.length === 0)).toBe(true);
  expect(calls.transcribe).toBe(1);
  const response = await api.db.selectFrom("responses").select("uuid").where("session_id", "=", sid).executeTakeFirstOrThrow();
  const answer = await api.db.selectFrom("answers").selectAll().where("response_uuid", "=", response.uuid).executeTakeFirstOrThrow();
  expect(answer.transcription_status).toBe("completed");
  await probeAnswer(deps, l, sid, link.questions[1].uuid);
  expect(calls.transcribe).toBe(1);
}, 60_000);

test("an empty transcript is done: probes neither transcribe nor analyse it again", async () => {
  const sid = await session();
  await recorded(sid);
  const response = await api.db.selectFrom("responses").select("uuid").where("session_id", "=", sid).executeTakeFirstOrThrow();
  // What the batch job stores for a silent recording (responses/processing.ts).
  await api.db
    .updateTable("answers")
    .set({ transcription: "", text: "", transcription_status: "completed", date_updated: nowIso() })
    .where("response_uuid", "=", response.uuid)
    .execute();
  const l = await findIntakeLink(api.db, api.ws.workspace_slug, link.slug);
  calls.transcribe = 0;
  calls.analyse = 0;
  for (let i = 0; i < 3; i++) expect(await probeAnswer(deps, l, sid, link.questions[1].uuid)).toEqual({ clarity: null, follow_up: null, follow_ups: [] });
  expect(calls).toEqual({ transcribe: 0, analyse: 0 });
}, 60_000);

test("on a German link an English-only engine asks no follow-up, where an English link gets one (no English question on a German page)", async () => {
  const question = {
    prompt: "Was können wir besser machen?",
    type: "text",
    enable_dynamic_probing: true,
    evaluator_config: { clarity_threshold: 1, max_follow_ups: 1 },
  };
  const make = async (language: string | null) =>
    (await api.call("POST", "/api/v1/links/", { body: { name: `Probe ${language}`, settings: { language }, questions: [question] } })).json;
  const asked: Record<string, unknown> = {};
  for (const language of ["en", "de"]) {
    const l = await make(language);
    const start = await api.call("POST", `/api/v1/intake/${api.ws.workspace_slug}/${l.slug}/sessions/`, { key: null, body: {} });
    const sid = start.json.session_id;
    const q = l.questions[0].uuid;
    expect(
      (await api.call("PUT", `/api/v1/intake/${api.ws.workspace_slug}/${l.slug}/sessions/${sid}/answers/${q}/`, { key: null, body: { value: "ok" } })).status,
    ).toBe(200);
    const result = await probeAnswer(deps, await findIntakeLink(api.db, api.ws.workspace_slug, l.slug), sid, q);
    asked[language] = result.follow_up;
  }
  expect(asked.en).toMatchObject({ index: 0, question: expect.any(String) });
  expect(asked.de).toBeNull();
});
