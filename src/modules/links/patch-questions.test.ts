/**
 * PATCH links/{uuid}/ question semantics (issue 13; docs/api.md "Editing questions"): a question
 * sent with its uuid keeps every member it does not send, a partial change that cannot stand is
 * refused with a pointer, and answers of removed questions keep their question_text.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const QUESTIONS = [
  { prompt: "Which plan?", type: "multiple_choice", field_key: "plan", required: true, configuration: { options: ["Free", "Pro"], allow_multiple: true } },
  {
    prompt: "Why?",
    type: "voice",
    field_key: "why",
    configuration: { max_duration: 45, enable_ai_evaluation: false },
    condition: { show_if: "field_value", field: "plan", operator: "equals", value: "Pro" },
    enable_dynamic_probing: true,
    fallback_to_text: false,
    evaluator_config: { clarity_threshold: 0.8, max_follow_ups: 2 },
  },
];

async function newLink() {
  const res = await api.call("POST", "/api/v1/links/", { body: { name: "Patch me", questions: QUESTIONS } });
  expect(res.status).toBe(201);
  return res.json;
}

const strip = (q: any) => {
  const { date_updated: _u, ...rest } = q;
  return rest;
};

test("a question sent back with its uuid and prompt but no type keeps its type, configuration and every other member", async () => {
  const link = await newLink();
  const res = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, {
    body: { questions: link.questions.map((q: any) => ({ uuid: q.uuid, prompt: q.prompt })) },
  });
  expect(res.status).toBe(200);
  // Before the fix the choice question became `voice` with its configuration reset.
  expect(res.json.questions.map(strip)).toEqual(link.questions.map(strip));
});

test("only the members sent change; uuid alone keeps the question as it is", async () => {
  const link = await newLink();
  const [plan, why] = link.questions;
  const res = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, {
    body: {
      questions: [
        { uuid: plan.uuid, required: false },
        { uuid: why.uuid, prompt: "Why Pro?", evaluator_config: { max_follow_ups: 1 } },
      ],
    },
  });
  expect(res.status).toBe(200);
  const [p2, w2] = res.json.questions;
  expect(p2).toMatchObject({ ...strip(plan), required: false });
  expect(w2).toMatchObject({ ...strip(why), prompt: "Why Pro?", evaluator_config: { max_follow_ups: 1 } });
  expect(w2.uuid).toBe(why.uuid);
});

test("changing the type without a configuration that fits the new type is refused with a pointer", async () => {
  const link = await newLink();
  const [plan, why] = link.questions;
  const res = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { questions: [{ uuid: plan.uuid }, { uuid: why.uuid, type: "text" }] } });
  expect(res.status).toBe(400);
  expect(res.json.code).toBe("VALIDATION_ERROR");
  expect(res.json.errors).toEqual([{ pointer: "/questions/1/configuration", message: expect.stringContaining("from voice to text") }]);
  // Unchanged after the refusal.
  expect((await api.call("GET", `/api/v1/links/${link.uuid}/`)).json.questions.map(strip)).toEqual(link.questions.map(strip));
  // With a configuration for the new type it passes; the other members are kept.
  const ok = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, {
    body: { questions: [{ uuid: plan.uuid }, { uuid: why.uuid, type: "text", configuration: {} }] },
  });
  expect(ok.status).toBe(200);
  expect(ok.json.questions[1]).toMatchObject({
    uuid: why.uuid,
    response_type: "text",
    configuration: {},
    field_key: "why",
    condition: why.condition,
    enable_dynamic_probing: true,
  });
  // A type change whose stored configuration fits the new type needs none: text ({}) → yes_no ({}).
  const yesNo = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { questions: [{ uuid: plan.uuid }, { uuid: why.uuid, type: "yes_no" }] } });
  expect(yesNo.status).toBe(200);
  expect(yesNo.json.questions[1]).toMatchObject({ uuid: why.uuid, response_type: "yes_no", configuration: {}, prompt: "Why?" });
});

test("new questions still need a prompt and take the defaults; unknown uuids are refused", async () => {
  const link = await newLink();
  const noPrompt = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { questions: [{ uuid: link.questions[0].uuid }, { type: "text" }] } });
  expect(noPrompt.status).toBe(400);
  expect(noPrompt.json.errors.map((e: any) => e.pointer)).toContain("/questions/1/prompt");
  const unknown = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { questions: [{ uuid: crypto.randomUUID(), prompt: "x" }] } });
  expect(unknown.status).toBe(400);
  expect(unknown.json.errors[0].pointer).toBe("/questions/0/uuid");
  const added = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { questions: [{ uuid: link.questions[0].uuid }, { prompt: "New one" }] } });
  expect(added.status).toBe(200);
  expect(added.json.questions[1]).toMatchObject({
    prompt: "New one",
    response_type: "voice",
    required: false,
    configuration: { max_duration: 120, enable_ai_evaluation: true },
  });
});

test("answers of a removed question keep their question_text", async () => {
  const link = await newLink();
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id;
  expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${link.questions[0].uuid}/`, { key: null, body: { value: ["Pro"] } })).status).toBe(200);
  expect((await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { questions: [{ prompt: "Something else", type: "text" }] } })).status).toBe(200);
  const list = await api.call("GET", `/api/v1/links/${link.uuid}/responses/?status=all`);
  expect(list.json.results[0].answers[0]).toMatchObject({ question_uuid: link.questions[0].uuid, question_text: "Which plan?", value: ["Pro"] });
});
