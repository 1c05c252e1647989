/**
 * Models lifecycle (issue 12; DESIGN §9): with no ASR model installed a voice answer waits as
 * `waiting_for_model` with a reason — no attempt used, no `failed`, no `response.submitted` yet —
 * and is transcribed by itself once the model's files are copied into the models directory;
 * `POST responses/{uuid}/reprocess/` and `earshot reprocess` queue failed or waiting answers again;
 * `POST …/probe/` answers with no follow-up instead of a 500. Real SQLite, the real runner and
 * worker, the fixture models "installed" mid-test by copying them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { $ } from "bun";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { createProcessing, FIXTURE_MODELS_DIR, FIXTURE_TRANSCRIPT, waitFor } from "../../test/helpers/processing.ts";
import type { InferenceClient } from "../ai/inference-client.ts";
import { createLogger } from "../logger.ts";
import type { JobRunner } from "./runner.ts";
import { runCli } from "../../test/helpers/process.ts";
import { isModelInstalled } from "../modules/health/service.ts";
import { WAITING_FOR_MODEL } from "../modules/responses/processing.ts";
import { probeAnswer } from "../modules/intake/probing.ts";
import { findIntakeLink } from "../modules/intake/service.ts";
import { nowIso } from "../clock.ts";

const ASR = "whisper-tiny-random";
let api: TestApi;
let modelsDir: string;
let inference: InferenceClient;
let runner: JobRunner;
let speech: Uint8Array;

beforeAll(async () => {
  api = await createTestApi();
  modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-models-"));
  const wav = path.join(api.dataDir, "speech.wav");
  await $`espeak-ng -w ${wav} "the checkout page keeps crashing"`.quiet();
  speech = new Uint8Array(fs.readFileSync(wav));
  ({ runner, inference } = await createProcessing(api, {
    modelsDir,
    resume: { kind: "transcribe", ready: () => isModelInstalled(modelsDir, ASR), everyMs: 200 },
  }));
});
afterAll(async () => {
  await runner.stop();
  await inference.close();
  await api.close();
  fs.rmSync(modelsDir, { recursive: true, force: true });
});

/** A link with one voice question (probing on), a session with a recording; `submit` submits it. */
async function recordedSession(name: string) {
  const link = (
    await api.call("POST", "/api/v1/links/", {
      body: {
        name,
        questions: [{ prompt: "What happened?", type: "voice", enable_dynamic_probing: true }],
        on_finished: { webhook_url: "https://receiver.example/hook", webhook_secret: "s" },
      },
    })
  ).json;
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  const q = link.questions[0].uuid as string;
  expect(
    (await api.call("POST", `${base}/sessions/${sid}/answers/${q}/audio/`, { key: null, raw: speech, headers: { "content-type": "audio/wav" } })).status,
  ).toBe(200);
  const submit = async () => {
    const r = await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} });
    expect(r.status).toBe(200);
    return r.json.response_uuid ?? (await api.call("GET", `/api/v1/links/${link.uuid}/responses/`)).json.results[0].uuid;
  };
  return { link, sid, q, submit };
}

const submittedEvents = async (responseUuid: string) =>
  (await api.db.selectFrom("outbox_events").select("uuid").where("type", "=", "response.submitted").where("response_uuid", "=", responseUuid).execute()).length;

describe("no ASR model installed", () => {
  test("POST …/probe/ answers with no follow-up instead of a 500", async () => {
    const s = await recordedSession("Probe without model");
    const l = await findIntakeLink(api.db, api.ws.workspace_slug, s.link.slug);
    const logged: string[] = [];
    const log = { ...createLogger("silent"), warn: (msg: string) => void logged.push(msg) };
    const r = await probeAnswer({ db: api.db, blobs: api.deps.blobs, inference, log: log as never }, l, s.sid, s.q);
    expect(r.follow_up).toBeNull();
    expect(logged.join("\n")).toContain("speech recognition model is not installed");
  });

  test("a voice answer waits as waiting_for_model with a reason, then is transcribed once the model is copied in", async () => {
    await runner.start();
    const s = await recordedSession("Waits for the model");
    const responseUuid = await s.submit();
    const answerOf = async () => (await api.call("GET", `/api/v1/responses/${responseUuid}/`)).json.answers[0];
    const waiting = await waitFor(
      async () => {
        const a = await answerOf();
        return a.transcription_status === "waiting_for_model" ? a : null;
      },
      60_000,
      "waiting_for_model",
    );
    expect(waiting.transcription_error).toBe(WAITING_FOR_MODEL);
    expect(waiting.transcription_error).not.toContain(modelsDir); // no server path to clients
    // It stays waiting without using attempts or failing, and the webhook event waits with it.
    await Bun.sleep(800);
    const job = await api.db.selectFrom("jobs").selectAll().where("kind", "=", "transcribe").where("state", "!=", "done").executeTakeFirstOrThrow();
    expect(job).toMatchObject({ state: "waiting", attempts: 0 });
    expect((await answerOf()).transcription_status).toBe("waiting_for_model");
    expect(await submittedEvents(responseUuid)).toBe(0);
    const health = await api.call("GET", "/healthz", { key: null });
    expect(health.json.jobs).toMatchObject({ waiting_for_model: 1, failed: 0 });

    // "Install" the model: copy the fixture's files into the models directory.
    fs.cpSync(path.join(FIXTURE_MODELS_DIR, ASR), path.join(modelsDir, ASR), { recursive: true });
    const done = await waitFor(
      async () => {
        const a = await answerOf();
        return a.transcription_status === "completed" ? a : null;
      },
      60_000,
      "transcription after install",
    );
    expect(done.transcription).toBe(FIXTURE_TRANSCRIPT);
    expect(done.transcription_error).toBeNull();
    await waitFor(async () => (await submittedEvents(responseUuid)) === 1, 30_000, "response.submitted");
    fs.rmSync(path.join(modelsDir, ASR), { recursive: true, force: true });
  });
});

describe("reprocess", () => {
  /** A submitted response whose voice answer failed for good (as after a lost recording decode). */
  async function failedResponse(name: string) {
    await runner.stop();
    const s = await recordedSession(name);
    const responseUuid = await s.submit();
    const answer = (await api.call("GET", `/api/v1/responses/${responseUuid}/`)).json.answers[0];
    await api.db.updateTable("jobs").set({ state: "failed", attempts: 5, last_error: "boom", date_updated: nowIso() }).where("state", "=", "queued").execute();
    await api.db.updateTable("answers").set({ transcription_status: "failed", transcription_error: "boom" }).where("uuid", "=", answer.uuid).execute();
    return { responseUuid, answerUuid: answer.uuid as string };
  }

  test("POST responses/{uuid}/reprocess/ queues a failed transcription again and it completes", async () => {
    const { responseUuid, answerUuid } = await failedResponse("Reprocess API");
    const viewer = await api.call("POST", "/api/v1/tokens/", { body: { name: "reader", scopes: ["responses:read"] } });
    expect((await api.call("POST", `/api/v1/responses/${responseUuid}/reprocess/`, { key: viewer.json.key, body: {} })).status).toBe(403);
    const other = await api.newWorkspace("Other");
    expect((await api.call("POST", `/api/v1/responses/${responseUuid}/reprocess/`, { key: other.api_key, body: {} })).status).toBe(404);

    const r = await api.call("POST", `/api/v1/responses/${responseUuid}/reprocess/`, { body: {} });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ response_uuid: responseUuid, queued: [{ answer_uuid: answerUuid, job: "transcribe" }] });
    const jobs = await api.db.selectFrom("jobs").selectAll().where("state", "in", ["queued", "failed"]).execute();
    expect(jobs.map((j) => [j.state, j.attempts])).toEqual([["queued", 0]]);
    expect((await api.call("GET", `/api/v1/responses/${responseUuid}/`)).json.answers[0]).toMatchObject({
      transcription_status: "pending",
      transcription_error: null,
    });
    // Nothing left to queue: a second call queues nothing.
    expect((await api.call("POST", `/api/v1/responses/${responseUuid}/reprocess/`, { body: {} })).json.queued).toEqual([]);

    fs.cpSync(path.join(FIXTURE_MODELS_DIR, ASR), path.join(modelsDir, ASR), { recursive: true });
    await runner.start();
    await waitFor(
      async () => (await api.call("GET", `/api/v1/responses/${responseUuid}/`)).json.answers[0].transcription_status === "completed",
      60_000,
      "reprocessed",
    );
    await runner.stop();
    fs.rmSync(path.join(modelsDir, ASR), { recursive: true, force: true });
  });

  test("earshot reprocess: waiting answers by default, failed ones with --failed, one response with --response", async () => {
    const a = await failedResponse("Reprocess CLI A");
    const b = await failedResponse("Reprocess CLI B");
    const cli = (args: string[]) => runCli(["reprocess", ...args], { dataDir: api.dataDir });
    let r = await cli([]);
    expect([r.code, r.stdout.trim()]).toEqual([0, "Nothing to reprocess."]);
    // Without flags: answers waiting for the model (as the server would leave them).
    await api.db
      .updateTable("answers")
      .set({ transcription_status: "waiting_for_model", transcription_error: WAITING_FOR_MODEL })
      .where("uuid", "=", a.answerUuid)
      .execute();
    r = await cli([]);
    expect([r.code, r.stdout.trim()]).toEqual([0, "Queued 1 answer again (1 transcription, 0 analyses)."]);
    await api.db.updateTable("answers").set({ transcription_status: "failed", transcription_error: "boom" }).where("uuid", "=", a.answerUuid).execute();
    r = await cli(["--response", a.responseUuid]);
    expect([r.code, r.stdout.trim()]).toEqual([0, "Queued 1 answer again (1 transcription, 0 analyses)."]);
    const status = async (uuid: string) => (await api.call("GET", `/api/v1/responses/${uuid}/`)).json.answers[0].transcription_status;
    expect(await status(a.responseUuid)).toBe("pending");
    expect(await status(b.responseUuid)).toBe("failed");
    r = await cli(["--failed"]);
    expect([r.code, r.stdout.trim()]).toEqual([0, "Queued 1 answer again (1 transcription, 0 analyses)."]);
    expect(await status(b.responseUuid)).toBe("pending");
    r = await cli(["--response", crypto.randomUUID()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No response");
  });
});
