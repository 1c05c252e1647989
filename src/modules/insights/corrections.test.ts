/**
 * Correcting an answer's insights (issue 16): PATCH …/answers/{uuid}/insights/ needs
 * `responses:write`, stays inside the caller's workspace, keeps the engine's original values,
 * records who and when, and the response then shows the corrected values with a marker.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { createInsightsEngine } from "../../ai/insights/index.ts";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { seedResponses } from "../../../test/helpers/seed-responses.ts";
import { correctionsAsLabelled } from "./service.ts";

let api: TestApi;
let responseUuid: string;
let answerUuid: string;
let unanalysed: { response: string; answer: string };
const TEXT = "Works fine; an export to Excel would save us time.";
const url = (r: string, a: string) => `/api/v1/responses/${r}/answers/${a}/insights/`;

beforeAll(async () => {
  api = await createTestApi();
  const link = (await api.call("POST", "/api/v1/links/", { body: { name: "Corrections", questions: [{ prompt: "Anything else?", type: "text" }] } })).json;
  const [analysed, pending] = await seedResponses(api.db, api.ws.workspace_uuid, link, 2, () => TEXT);
  // The insights the engine really gives this text (the lexicon engine: it calls a request praise).
  const engine = createInsightsEngine({ modelsDir: path.join(api.dataDir, "no-models"), sentimentModel: "(none)", fallback: "lexicon" });
  const { ai_insights } = await engine.analyse(TEXT);
  const answers = await api.db.selectFrom("answers").select(["uuid", "response_uuid"]).execute();
  const answerOf = (r: string) => answers.find((a) => a.response_uuid === r)!.uuid;
  responseUuid = analysed!;
  answerUuid = answerOf(analysed!);
  unanalysed = { response: pending!, answer: answerOf(pending!) };
  await api.db
    .updateTable("answers")
    .set({ ai_insights: JSON.stringify({ ...ai_insights, sentiment: "positive", actionable: false }), analysis_engine: "{}", analysis_status: "completed" })
    .where("uuid", "=", answerUuid)
    .execute();
});
afterAll(() => api.close());

describe("PATCH /api/v1/responses/{uuid}/answers/{uuid}/insights/", () => {
  test("a key without responses:write is refused with 403", async () => {
    const readOnly = (await api.call("POST", "/api/v1/tokens/", { body: { name: "reader", scopes: ["responses:read"] } })).json;
    const r = await api.call("PATCH", url(responseUuid, answerUuid), { body: { sentiment: "neutral" }, key: readOnly.key });
    expect(r.status).toBe(403);
    expect(r.json.code).toBe("INSUFFICIENT_SCOPE");
  });

  test("another workspace's key gets 404, and nothing changes", async () => {
    const other = await api.newWorkspace("Other");
    const r = await api.call("PATCH", url(responseUuid, answerUuid), { body: { sentiment: "negative" }, key: other.api_key });
    expect(r.status).toBe(404);
    expect(r.json.code).toBe("NOT_FOUND");
    const rows = await api.db.selectFrom("insight_corrections").selectAll().execute();
    expect(rows).toHaveLength(0);
  });

  test("a malformed uuid, a foreign answer and an empty body are refused", async () => {
    expect((await api.call("PATCH", url("nope", answerUuid), { body: { sentiment: "neutral" } })).status).toBe(404);
    expect((await api.call("PATCH", url(responseUuid, unanalysed.answer), { body: { sentiment: "neutral" } })).status).toBe(404);
    const empty = await api.call("PATCH", url(responseUuid, answerUuid), { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.json.code).toBe("VALIDATION_ERROR");
    const bad = await api.call("PATCH", url(responseUuid, answerUuid), { body: { sentiment: "happy" } });
    expect(bad.status).toBe(400);
  });

  test("an answer without insights cannot be corrected yet (409)", async () => {
    const r = await api.call("PATCH", url(unanalysed.response, unanalysed.answer), { body: { actionable: true } });
    expect(r.status).toBe(409);
    expect(r.json.code).toBe("INSIGHTS_NOT_READY");
  });

  test("the correction shows on the answer with who, when and the original kept", async () => {
    const before = Date.now();
    const r = await api.call("PATCH", url(responseUuid, answerUuid), { body: { sentiment: "neutral", actionable: true } });
    expect(r.status).toBe(200);
    expect(r.json.answer_uuid).toBe(answerUuid);
    const insights = r.json.ai_insights;
    expect(insights.sentiment).toBe("neutral");
    expect(insights.actionable).toBe(true);
    expect(insights.corrected.original).toEqual({ sentiment: "positive", actionable: false });
    expect(insights.corrected.by).toEqual({ type: "key", uuid: expect.any(String), name: expect.any(String) });
    expect(Date.parse(insights.corrected.at)).toBeGreaterThanOrEqual(before - 1000);

    const shown = await api.call("GET", `/api/v1/responses/${responseUuid}/`);
    const answer = shown.json.answers.find((a: any) => a.uuid === answerUuid);
    expect(answer.ai_insights).toEqual(insights);

    const rows = await api.db.selectFrom("insight_corrections").selectAll().where("answer_uuid", "=", answerUuid).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      workspace_uuid: api.ws.workspace_uuid,
      original_sentiment: "positive",
      original_actionable: 0,
      sentiment: "neutral",
      actionable: 1,
      actor_type: "key",
      actor_uuid: insights.corrected.by.uuid,
      date_created: insights.corrected.at,
    });
  });

  test("a second correction keeps the engine's original and is another audit row; it labels the answer for training", async () => {
    const r = await api.call("PATCH", url(responseUuid, answerUuid), { body: { sentiment: "negative" } });
    expect(r.status).toBe(200);
    expect(r.json.ai_insights.sentiment).toBe("negative");
    expect(r.json.ai_insights.actionable).toBe(true);
    expect(r.json.ai_insights.corrected.original).toEqual({ sentiment: "positive", actionable: false });
    const rows = await api.db.selectFrom("insight_corrections").selectAll().where("answer_uuid", "=", answerUuid).execute();
    expect(rows).toHaveLength(2);
    expect(await correctionsAsLabelled(api.db, api.ws.workspace_uuid)).toEqual([{ id: answerUuid, text: TEXT, sentiment: "negative", actionable: true }]);
  });

  test("erasing the response erases its corrections", async () => {
    expect((await api.call("DELETE", `/api/v1/responses/${responseUuid}/`)).status).toBe(200);
    const rows = await api.db.selectFrom("insight_corrections").selectAll().where("answer_uuid", "=", answerUuid).execute();
    expect(rows).toHaveLength(0);
  });
});
