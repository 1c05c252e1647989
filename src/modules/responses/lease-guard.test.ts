/**
 * A job's result is written only while the claim is still the job's current run: a node that
 * stalled past its lease (another node re-claimed the job meanwhile) must not write a second
 * result, so no job runs twice to completion (issue 15, several nodes on one database).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { FIXTURE_MODELS_DIR } from "../../../test/helpers/fixtures.ts";
import { processingDepsOf } from "../../app-deps.ts";
import { createInferenceClient, type InferenceClient } from "../../ai/inference-client.ts";
import { claimJob, LeaseLostError } from "../../jobs/queue.ts";
import { analyseAnswer } from "./processing.ts";

let api: TestApi;
let inference: InferenceClient;

beforeAll(async () => {
  api = await createTestApi();
  inference = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: "whisper-tiny-random", sentimentModel: "tiny-sentiment-3class" });
});
afterAll(async () => {
  await inference.close();
  await api.close();
});

test("a claimer whose lease expired and whose job was claimed again writes nothing; the new claimer's result is stored", async () => {
  const created = await api.call("POST", "/api/v1/links/", { body: { name: "Lease guard", questions: [{ prompt: "What went wrong?", type: "text" }] } });
  expect(created.status).toBe(201);
  const link = created.json;
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  const saved = await api.call("PUT", `${base}/sessions/${sid}/answers/${link.questions[0].uuid}/`, {
    key: null,
    body: { value: "The checkout page crashes every time I pay." },
  });
  expect(saved.status).toBeLessThan(300);
  expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBeLessThan(300);

  const deps = processingDepsOf({ ...api.deps, inference, nudgeJobs: () => {}, nudgeOutbox: () => {} });
  const stalled = await claimJob(api.db, -1); // node A: its lease has already expired
  expect(stalled).toMatchObject({ kind: "analyse", attempts: 1 });
  const current = await claimJob(api.db); // node B takes the job over
  expect(current).toMatchObject({ id: stalled!.id, attempts: 2 });

  await expect(analyseAnswer(deps, stalled!)).rejects.toBeInstanceOf(LeaseLostError);
  const answer = () =>
    api.db.selectFrom("answers").select(["analysis_status", "ai_insights"]).where("question_uuid", "=", link.questions[0].uuid).executeTakeFirstOrThrow();
  expect(await answer()).toEqual({ analysis_status: "pending", ai_insights: null });

  await analyseAnswer(deps, current!);
  expect((await answer()).analysis_status).toBe("completed");
});
