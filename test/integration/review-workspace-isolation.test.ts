/**
 * Review of the auth rewrite (issue 13: the `auth` macro replaced `authed()`): a key of workspace B
 * given the uuids of workspace A's link, response, answer, webhook, delivery, token and invite gets
 * no 2xx and no 5xx from any operation of the catalogue, and A's resources are unchanged after
 * the sweep (DESIGN §5: "Another workspace's resource answers 404"). Driven by the catalogue, so a
 * new route is swept too. Runs on the test engine (SQLite or PostgreSQL).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../helpers/api.ts";
import { apiOperations } from "../../src/api/operations.ts";

let api: TestApi;
let ids: Record<string, string>;
let keyB: string;

beforeAll(async () => {
  api = await createTestApi();
  const link = await api.call("POST", "/api/v1/links/", { body: { name: "A link", questions: [{ prompt: "Anything else?", type: "text" }] } });
  expect(link.status).toBe(201);
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}`;
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  const q = link.json.questions[0].uuid as string;
  expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${q}/`, { key: null, body: { value: "hello from A" } })).status).toBe(200);
  expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  const response = (await api.call("GET", "/api/v1/responses/")).json.results[0];
  const hooks = `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`;
  const hook = await api.call("POST", hooks, { body: { url: "https://hooks.example.com/a", events: ["response.submitted"] } });
  expect(hook.status).toBe(201);
  const test202 = await api.call("POST", `${hooks}${hook.json.uuid}/test/`);
  expect(test202.status).toBe(202);
  const token = await api.call("POST", "/api/v1/tokens/", { body: { name: "A's second key", scopes: ["links:read"] } });
  ids = {
    workspace_uuid: api.ws.workspace_uuid,
    link_uuid: link.json.uuid,
    response_uuid: response.uuid,
    answer_uuid: response.answers[0].uuid,
    question_uuid: q,
    webhook_uuid: hook.json.uuid,
    delivery_uuid: test202.json.uuid,
    token_uuid: token.json.uuid,
    index: "0",
  };
  keyB = (await api.newWorkspace("B")).api_key;
});
afterAll(() => api.close());

const guarded = apiOperations.filter((op) => op.scope !== "public" && !op.path.startsWith("/api/v1/auth/"));
const pathOf = (p: string) => p.replace(/:([a-z_]+)/g, (_, name: string) => ids[name] ?? crypto.randomUUID());

test("a key of workspace B gets no 2xx and no 5xx on workspace A's resources, and A's resources are intact", async () => {
  const before = {
    link: (await api.call("GET", `/api/v1/links/${ids.link_uuid}/`)).json,
    response: (await api.call("GET", `/api/v1/responses/${ids.response_uuid}/`)).json,
    hook: (await api.call("GET", `/api/v1/workspaces/${ids.workspace_uuid}/webhooks/${ids.webhook_uuid}/`)).json,
    tokens: (await api.call("GET", "/api/v1/tokens/")).json.count,
  };
  const wrong: string[] = [];
  let swept = 0;
  for (const op of guarded) {
    if (!op.path.includes(":")) continue; // workspace-less paths answer B's own workspace
    swept++;
    const method = op.method.toUpperCase();
    const body = ["POST", "PATCH", "PUT"].includes(method)
      ? { body: { name: "B was here", url: "https://hooks.example.com/b", role: "owner", sentiment: "negative" } }
      : {};
    const r = await api.call(method, pathOf(op.path), { key: keyB, ...body });
    if (r.status < 400 || r.status >= 500) wrong.push(`${method} ${op.path}: ${r.status} ${r.json?.code ?? r.text.slice(0, 80)}`);
  }
  expect(swept).toBeGreaterThanOrEqual(20);
  expect(wrong).toEqual([]);
  // B's workspace-wide reads show none of A's data.
  expect((await api.call("GET", "/api/v1/responses/", { key: keyB })).json.count).toBe(0);
  expect((await api.call("GET", "/api/v1/links/", { key: keyB })).json.count).toBe(0);
  const exported = await api.call("GET", "/api/v1/responses/export/?format=jsonl", { key: keyB });
  expect(exported.status).toBe(200);
  expect(exported.text).not.toContain("hello from A");
  expect(exported.text).not.toContain(ids.response_uuid);
  // Nothing of A's changed.
  expect((await api.call("GET", `/api/v1/links/${ids.link_uuid}/`)).json).toEqual(before.link);
  const response = (await api.call("GET", `/api/v1/responses/${ids.response_uuid}/`)).json;
  expect({ ...response, answers: response.answers.map((a: Record<string, unknown>) => ({ ...a, audio_url: null })) }).toEqual({
    ...before.response,
    answers: before.response.answers.map((a: Record<string, unknown>) => ({ ...a, audio_url: null })),
  });
  expect((await api.call("GET", `/api/v1/workspaces/${ids.workspace_uuid}/webhooks/${ids.webhook_uuid}/`)).json).toEqual(before.hook);
  expect((await api.call("GET", "/api/v1/tokens/")).json.count).toBe(before.tokens);
}, 120_000);
