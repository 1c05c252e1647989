/**
 * Issue 9 items 1–3 and the Low audio items, end to end over a real SQLite file, the real app
 * (`app.handle`), the real inference worker with the fixture models and the real job runner:
 * recordings bounded by `max_duration` + 2 s, a probe or follow-up racing `submit/`, and jobs
 * interrupted at every attempt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { $ } from "bun";
import fs from "node:fs";
import path from "node:path";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { storedBlobCount } from "../../../test/helpers/db.ts";
import { FIXTURE_TRANSCRIPT, startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { createInferenceClient, type InferenceClient } from "../../ai/inference-client.ts";
import { oggOpusOf, pcm8Wav, toneWav, webmOfOgg } from "../../../test/helpers/audio-fixtures.ts";
import { claimJob, recoverRunningJobs } from "../../jobs/queue.ts";
import { answerFollowUp, probeAnswer, type ProbingDeps } from "../intake/probing.ts";
import { findIntakeLink } from "../intake/service.ts";
import { FIXTURE_MODELS_DIR } from "../../../test/helpers/fixtures.ts";

let api: TestApi;
let inference: InferenceClient;
let speech: Uint8Array;
let longWebm: Uint8Array; // 10 s, honest timestamps
let squeezedWebm: Uint8Array; // 10 s of Opus whose timestamps claim ~0.5 s

beforeAll(async () => {
  api = await createTestApi();
  inference = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: "whisper-tiny-random", sentimentModel: "tiny-sentiment-3class" });
  const file = path.join(api.dataDir, "speech.wav");
  await $`espeak-ng -w ${file} "the checkout page keeps crashing"`.quiet();
  speech = new Uint8Array(fs.readFileSync(file));
  const ogg = await oggOpusOf(api.dataDir, toneWav({ seconds: 10, rateHz: 16_000 }));
  longWebm = await webmOfOgg(ogg);
  squeezedWebm = await webmOfOgg(ogg, { squeeze: true });
});
afterAll(async () => {
  await inference.close();
  await api.close();
});

type Q = {
  prompt: string;
  type: string;
  configuration?: Record<string, unknown>;
  enable_dynamic_probing?: boolean;
  evaluator_config?: Record<string, unknown>;
};

/** Blobs in the store (files, or rows on PostgreSQL). */
const blobCount = () => storedBlobCount(api.db, api.config.blobsDir);

async function newLink(name: string, questions: Q[]) {
  // An on_finished webhook, so `response.submitted` is written to the outbox (the dispatcher is not running).
  const r = await api.call("POST", "/api/v1/links/", {
    body: { name, questions, on_finished: { webhook_url: "https://receiver.example/hook", webhook_secret: "s" } },
  });
  expect(r.status).toBe(201);
  const link = r.json;
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  const qid = (i = 0) => link.questions[i].uuid as string;
  const upload = (bytes: Uint8Array, i = 0, type = "audio/wav") =>
    api.call("POST", `${base}/sessions/${sid}/answers/${qid(i)}/audio/`, { key: null, raw: bytes, headers: { "content-type": type } });
  return { link, base, sid, qid, upload };
}

const responseOf = (sid: string) => api.db.selectFrom("responses").selectAll().where("session_id", "=", sid).executeTakeFirstOrThrow();
const answersOf = async (sid: string) =>
  api.db
    .selectFrom("answers")
    .selectAll()
    .where("response_uuid", "=", (await responseOf(sid)).uuid)
    .execute();
async function submittedEvents(sid: string): Promise<number> {
  const r = await responseOf(sid);
  const rows = await api.db
    .selectFrom("outbox_events")
    .select("uuid")
    .where("type", "=", "response.submitted")
    .where("payload", "like", `%${r.uuid}%`)
    .execute();
  return rows.length;
}

/** The real inference, with the transcription's answer held until `release()` (forces an interleaving). */
function pausedAfterTranscription(): { deps: () => ProbingDeps; transcribed: Promise<void>; release: () => void } {
  const transcribed = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  return {
    deps: () => ({
      db: api.db,
      blobs: api.deps.blobs,
      inference: {
        analyse: (...args) => inference.analyse(...args),
        transcribe: async (audio, opts) => {
          const result = await inference.transcribe(audio, opts);
          transcribed.resolve();
          await gate.promise;
          return result;
        },
      },
    }),
    transcribed: transcribed.promise,
    release: () => gate.resolve(),
  };
}

describe("recordings are bounded by max_duration + 2 s (issue 9 item 1)", () => {
  test("the 1 MB WAV declaring 100 Hz on a 10 s question is refused at upload, before decoding, with little memory", async () => {
    const { sid, upload } = await newLink("Bomb", [{ prompt: "Speak", type: "voice", configuration: { max_duration: 10 } }]);
    const bomb = pcm8Wav(100, 1024 * 1024);
    Bun.gc(true);
    const rssBefore = process.memoryUsage().rss;
    const r = await upload(bomb);
    expect([r.status, r.json.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    expect(r.json.detail).toContain("100 Hz");
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
    expect(await answersOf(sid)).toEqual([]);
  });

  test("a 600 s WAV on a 120 s question is refused with 400 AUDIO_TOO_LONG and nothing is stored", async () => {
    const { sid, upload } = await newLink("Long WAV", [{ prompt: "Speak", type: "voice", configuration: { max_duration: 120 } }]);
    const blobsBefore = await blobCount();
    const r = await upload(pcm8Wav(8_000, 600 * 8_000));
    expect([r.status, r.json.code]).toEqual([400, "AUDIO_TOO_LONG"]);
    expect(r.headers.get("content-type")).toContain("application/problem+json");
    expect(r.json.detail).toContain("122 s");
    expect(await answersOf(sid)).toEqual([]);
    expect(await blobCount()).toBe(blobsBefore);
    expect((await upload(pcm8Wav(8_000, 121 * 8_000))).status).toBe(200); // within the 2 s grace
  });

  test("a 10 s WebM on a 1 s question is refused at upload; one whose timestamps lie is refused after decoding", async () => {
    const honest = await newLink("Long WebM", [{ prompt: "Speak", type: "voice", configuration: { max_duration: 1 } }]);
    const refused = await honest.upload(longWebm, 0, "audio/webm");
    expect([refused.status, refused.json.code]).toEqual([400, "AUDIO_TOO_LONG"]);

    const lying = await newLink("Lying WebM", [{ prompt: "Speak", type: "voice", configuration: { max_duration: 1 } }]);
    expect((await lying.upload(squeezedWebm, 0, "audio/webm")).status).toBe(200);
    expect((await api.call("POST", `${lying.base}/sessions/${lying.sid}/submit/`, { key: null, body: {} })).status).toBe(200);
    const processing = await startProcessing(api);
    try {
      const [answer] = await waitFor(
        async () => {
          const rows = await answersOf(lying.sid);
          return rows[0]?.transcription_status === "failed" ? rows : null;
        },
        60_000,
        "the transcription to fail",
      );
      expect(answer!.transcription_error).toContain("longer than the 3 s accepted");
      expect(answer!.duration).toBeNull();
      expect(await submittedEvents(lying.sid)).toBe(1);
    } finally {
      await processing.stop();
    }
  });

  test("probe/ and follow-up recordings go through the same bound; undecodable audio is 415, not 500", async () => {
    const { base, sid, qid, upload } = await newLink("Probe bound", [
      {
        prompt: "Speak",
        type: "voice",
        configuration: { max_duration: 1 },
        enable_dynamic_probing: true,
        evaluator_config: { clarity_threshold: 1, max_follow_ups: 2 },
      },
      {
        prompt: "Speak again",
        type: "voice",
        configuration: { max_duration: 5 },
        enable_dynamic_probing: true,
        evaluator_config: { clarity_threshold: 1, max_follow_ups: 2 },
      },
    ]);
    const probe = (i: number) => api.call("POST", `${base}/sessions/${sid}/answers/${qid(i)}/probe/`, { key: null, body: {} });
    expect((await upload(squeezedWebm, 0, "audio/webm")).status).toBe(200);
    const tooLong = await probe(0);
    expect([tooLong.status, tooLong.json.code]).toEqual([400, "AUDIO_TOO_LONG"]);

    const webmMagic = longWebm.subarray(0, 4);
    const garbage = new Uint8Array([...webmMagic, ...crypto.getRandomValues(new Uint8Array(4096))]);
    expect((await upload(garbage, 1, "audio/webm")).status).toBe(200);
    const undecodable = await probe(1);
    expect([undecodable.status, undecodable.json.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);

    // A decodable answer gets its follow-up; its recorded answer is bounded and decoded the same way.
    expect((await upload(speech, 1)).status).toBe(200);
    const p = await probe(1);
    expect(p.status).toBe(200);
    expect(p.json.follow_up).toEqual({ index: 0, question: expect.any(String) });
    const followUp = (bytes: Uint8Array, type: string) =>
      api.call("POST", `${base}/sessions/${sid}/answers/${qid(1)}/follow-ups/0/audio/`, { key: null, raw: bytes, headers: { "content-type": type } });
    const longAnswer = await followUp(squeezedWebm, "audio/webm");
    expect([longAnswer.status, longAnswer.json.code]).toEqual([400, "AUDIO_TOO_LONG"]);
    const badAnswer = await followUp(garbage, "audio/webm");
    expect([badAnswer.status, badAnswer.json.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    expect(JSON.stringify(badAnswer.json)).not.toContain(api.dataDir);
    const ok = await followUp(speech, "audio/wav");
    expect(ok.status).toBe(200);
    expect(ok.json.follow_ups[0]).toMatchObject({ answer: FIXTURE_TRANSCRIPT, has_audio: true });
  });
});

describe("a probe or follow-up racing submit/ (issue 9 item 2)", () => {
  test("probe transcribing while submit/ lands: the probe writes nothing, the job transcribes, the event is queued once with insights", async () => {
    const { base, sid, qid, upload, link } = await newLink("Race", [
      { prompt: "What went wrong?", type: "voice", enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 1 } },
    ]);
    expect((await upload(speech)).status).toBe(200);
    const l = await findIntakeLink(api.db, api.ws.workspace_slug, link.slug);
    const paused = pausedAfterTranscription();
    const probing = probeAnswer(paused.deps(), l, sid, qid()).then(
      () => null,
      (e: unknown) => e,
    );
    await paused.transcribed; // the probe has its transcript but has not written it
    expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
    paused.release();
    expect(await probing).toMatchObject({ code: "ALREADY_SUBMITTED" });
    const [before] = await answersOf(sid);
    expect(before!.transcription_status).toBe("pending"); // left to the submit's job

    const processing = await startProcessing(api);
    try {
      const [answer] = await waitFor(
        async () => {
          const rows = await answersOf(sid);
          return rows[0]?.ai_insights ? rows : null;
        },
        60_000,
        "transcription and insights",
      );
      expect([answer!.transcription_status, answer!.transcription]).toEqual(["completed", FIXTURE_TRANSCRIPT]);
      await waitFor(async () => (await submittedEvents(sid)) > 0, 10_000, "response.submitted");
      await Bun.sleep(300);
      expect(await submittedEvents(sid)).toBe(1);
      const event = await api.db
        .selectFrom("outbox_events")
        .select("payload")
        .where("type", "=", "response.submitted")
        .where("payload", "like", `%${(await responseOf(sid)).uuid}%`)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(event.payload).data.response.answers[0].ai_insights).toMatchObject({ sentiment: expect.any(String) });
    } finally {
      await processing.stop();
    }
  });

  test("a follow-up recording transcribed while submit/ lands is refused with 409 ALREADY_SUBMITTED and not stored", async () => {
    const { base, sid, qid, link } = await newLink("Race follow-up", [
      { prompt: "What went wrong?", type: "text", enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 1 } },
    ]);
    await api.call("PUT", `${base}/sessions/${sid}/answers/${qid()}/`, { key: null, body: { value: "stuff" } });
    expect((await api.call("POST", `${base}/sessions/${sid}/answers/${qid()}/probe/`, { key: null, body: {} })).json.follow_up?.index).toBe(0);
    const l = await findIntakeLink(api.db, api.ws.workspace_slug, link.slug);
    const paused = pausedAfterTranscription();
    const blobsBefore = await blobCount();
    const answering = answerFollowUp(paused.deps(), l, sid, qid(), 0, { audio: speech }).then(
      () => null,
      (e: unknown) => e,
    );
    await paused.transcribed;
    expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
    paused.release();
    expect(await answering).toMatchObject({ code: "ALREADY_SUBMITTED", status: 409 });
    const [answer] = await answersOf(sid);
    expect(JSON.parse(answer!.follow_ups)).toEqual([{ question: expect.any(String), answer: null }]);
    expect(await blobCount()).toBe(blobsBefore);
    const late = await api.call("PUT", `${base}/sessions/${sid}/answers/${qid()}/follow-ups/0/`, { key: null, body: { value: "too late" } });
    expect([late.status, late.json.code]).toEqual([409, "ALREADY_SUBMITTED"]);
  });
});

describe("jobs interrupted at every attempt (issue 9 item 3)", () => {
  test("a transcription whose process died max_attempts times is failed with a reason and the event still goes", async () => {
    const { base, sid, upload } = await newLink("Poison", [{ prompt: "Speak", type: "voice" }]);
    expect((await upload(speech)).status).toBe(200);
    expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
    const [answer] = await answersOf(sid);
    // Only this test's job is due (earlier tests leave jobs their runner never ran).
    await api.db.updateTable("jobs").set({ state: "done" }).where("payload", "not like", `%${answer!.uuid}%`).execute();
    const isOurs = (j: { payload: Record<string, unknown> } | null) => j?.payload.answer_uuid === answer!.uuid;
    for (let crash = 0; crash < 5; crash++) {
      const job = await claimJob(api.db); // the job this process would run…
      expect(isOurs(job)).toBe(true);
      await recoverRunningJobs(api.db); // …when it died, and the next start
    }
    expect(await claimJob(api.db)).toBeNull();
    const processing = await startProcessing(api);
    try {
      const [failed] = await waitFor(
        async () => {
          const rows = await answersOf(sid);
          return rows[0]?.transcription_status === "failed" ? rows : null;
        },
        30_000,
        "the answer to be failed",
      );
      expect(failed!.transcription_error).toContain("Gave up after 5 attempts");
      await waitFor(async () => (await submittedEvents(sid)) === 1, 10_000, "response.submitted");
      const job = await api.db.selectFrom("jobs").selectAll().where("payload", "like", `%${answer!.uuid}%`).executeTakeFirstOrThrow();
      expect([job.state, job.attempts]).toEqual(["failed", 5]);
    } finally {
      await processing.stop();
    }
  });
});
