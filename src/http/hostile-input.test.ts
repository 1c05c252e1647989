/**
 * Table-driven hostile and malformed input across every authenticated endpoint: each gets its
 * documented 4xx, a problem+json body without internals, and leaves the database unchanged.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";

let api: TestApi;
let link: any;
beforeAll(async () => {
  api = await createTestApi();
  link = (await api.call("POST", "/api/v1/links/", { body: { name: "Target", questions: [{ prompt: "Q", type: "text" }] } })).json;
});
afterAll(() => api.close());

async function snapshot(): Promise<string> {
  const tables = ["workspaces", "api_tokens", "links", "questions", "responses", "answers", "jobs", "webhooks", "outbox_events", "webhook_deliveries"];
  const counts: Record<string, unknown> = {};
  for (const t of tables) counts[t] = (await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(t)}`.execute(api.db)).rows[0]!.n;
  const links = await api.db.selectFrom("links").selectAll().orderBy("uuid").execute();
  return JSON.stringify({ counts, links });
}

const BAD_IDS = [
  "not-a-uuid",
  "1",
  "00000000-0000-0000-0000-00000000000g",
  "%27%20OR%201%3D1%20--",
  "..%2F..%2Fetc%2Fpasswd",
  "a".repeat(300),
  crypto.randomUUID(),
];
const ID_ROUTES: [string, (id: string) => string, unknown?][] = [
  ["GET", (id) => `/api/v1/links/${id}/`],
  ["PATCH", (id) => `/api/v1/links/${id}/`, { name: "x" }],
  ["DELETE", (id) => `/api/v1/links/${id}/`],
  ["GET", (id) => `/api/v1/links/${id}/responses/`],
  ["GET", (id) => `/api/v1/links/${id}/responses/export/`],
  ["GET", (id) => `/api/v1/links/${id}/responses/${id}/`],
  ["GET", (id) => `/api/v1/responses/${id}/`],
  ["DELETE", (id) => `/api/v1/responses/${id}/`],
  ["GET", (id) => `/api/v1/responses/${id}/answers/${id}/audio/`],
  ["GET", (id) => `/api/v1/responses/${id}/answers/${id}/file/`],
  ["DELETE", (id) => `/api/v1/tokens/${id}/`],
  ["GET", (id) => `/api/v1/workspaces/${id}/webhooks/`],
  ["POST", (id) => `/api/v1/workspaces/${id}/webhooks/`, { url: "https://hooks.example.com/x", events: ["response.started"] }],
  ["GET", (id) => `/api/v1/workspaces/{ws}/webhooks/${id}/`],
  ["PATCH", (id) => `/api/v1/workspaces/{ws}/webhooks/${id}/`, { enabled: false }],
  ["DELETE", (id) => `/api/v1/workspaces/{ws}/webhooks/${id}/`],
  ["GET", (id) => `/api/v1/workspaces/{ws}/webhooks/${id}/deliveries/`],
  ["POST", (id) => `/api/v1/workspaces/{ws}/webhooks/${id}/rotate-secret/`],
  ["POST", (id) => `/api/v1/workspaces/{ws}/webhooks/${id}/test/`],
  ["POST", (id) => `/api/v1/workspaces/{ws}/webhooks/${id}/deliveries/${id}/redeliver/`],
  ["GET", (id) => `/api/v1/intake/{wss}/${id}/`],
  ["POST", (id) => `/api/v1/intake/{wss}/${id}/sessions/`, {}],
  ["GET", (id) => `/api/v1/intake/{wss}/target/sessions/${id}/`],
  ["PUT", (id) => `/api/v1/intake/{wss}/target/sessions/${id}/answers/${id}/`, { value: "x" }],
  ["POST", (id) => `/api/v1/intake/{wss}/target/sessions/${id}/submit/`, {}],
  ["POST", (id) => `/api/v1/intake/{wss}/target/sessions/${id}/answers/${id}/probe/`, {}],
  ["PUT", (id) => `/api/v1/intake/{wss}/target/sessions/${id}/answers/${id}/follow-ups/0/`, { value: "x" }],
];

test.each(ID_ROUTES.flatMap(([m, p, b]) => BAD_IDS.map((id) => [m, p(id), b] as const)))(
  "%s %s with a malformed or unknown id → 404",
  async (method, path, body) => {
    const before = await snapshot();
    const r = await api.call(method, path.replace("{ws}", api.ws.workspace_uuid).replace("{wss}", api.ws.workspace_slug), { body });
    expect(r.status).toBe(404);
    expect(r.json.code).toBe("NOT_FOUND");
    expect(r.text).not.toMatch(/node_modules|\.ts:\d+|at async/);
    expect(await snapshot()).toBe(before);
  },
);

const LISTS = [
  "/api/v1/links/",
  "/api/v1/tokens/",
  "/api/v1/responses/",
  () => `/api/v1/links/${link.uuid}/responses/`,
  () => `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`,
];
const BAD_QUERIES = ["page=0", "page=-3", "page=abc", "page=1e3", "page_size=0", "page_size=-1", "page_size=ten", "page=99999999999", "page=%00"];
test.each(
  LISTS.flatMap((l) => BAD_QUERIES.map((q) => [typeof l === "string" ? l : l.toString().includes("webhooks") ? "webhooks" : "link responses", l, q] as const)),
)("GET %s ?%s → 400", async (_label, l, q) => {
  const before = await snapshot();
  const r = await api.call("GET", `${typeof l === "string" ? l : l()}?${q}`);
  expect([q, r.status, r.json.code]).toEqual([q, 400, "VALIDATION_ERROR"]);
  expect(r.json.errors[0].pointer).toMatch(/^\/page/);
  expect(await snapshot()).toBe(before);
});

test.each([
  ["search too long", `search=${"x".repeat(201)}`, 400],
  ["control characters in search", `search=${encodeURIComponent("\u0000\u0007\u001b[31m")}`, 200],
  ["SQL in search", `search=${encodeURIComponent("' OR '1'='1' --")}`, 200],
  ["FTS syntax in search", `search=${encodeURIComponent('NEAR(a b) OR "x" * ^')}`, 200],
  ["HTML in search", `search=${encodeURIComponent("<img src=x onerror=alert(1)>")}`, 200],
  ["unknown ordering", "ordering=password", 400],
  ["unknown status", "status=deleted", 400],
  ["duplicate parameters", "status=all&status=completed&page=1&page=1", 200],
] as const)("responses list: %s → %d", async (_name, q, status) => {
  const before = await snapshot();
  const r = await api.call("GET", `/api/v1/links/${link.uuid}/responses/?${q}`);
  expect(r.status).toBe(status);
  if (status === 200) expect(r.json.count).toBe(0);
  expect(await snapshot()).toBe(before);
});

test.each([
  ["POST", "/api/v1/links/"],
  ["PATCH", "/api/v1/links/{link}/"],
  ["POST", "/api/v1/tokens/"],
  ["POST", "/api/v1/workspaces/{ws}/webhooks/"],
] as const)("%s %s: wrong types in every field, missing and non-JSON bodies are refused", async (method, template) => {
  const path = template.replace("{link}", link.uuid).replace("{ws}", api.ws.workspace_uuid);
  const before = await snapshot();
  const bodies: unknown[] = [
    "a string",
    42,
    null,
    true,
    [],
    { name: ["x"] },
    { name: { $gt: "" } },
    { name: "x", slug: 7 },
    { name: "x", scopes: "links:read" },
    { name: "x", settings: "dark" },
    { name: "x", questions: [null] },
    { name: "x", questions: [{ prompt: 1 }] },
    { name: "x", questions: [{ prompt: "p", required: "yes" }] },
    { name: "x", questions: [{ prompt: "p", order: -1 }] },
    { name: "x", questions: [{ prompt: "p", order: 1.5 }] },
    { name: "x", status: 1 },
    { url: 5, events: ["response.started"] },
    { url: "https://hooks.example.com/x", events: "response.started" },
    { url: "https://hooks.example.com/x", events: [] },
    { url: "https://hooks.example.com/x", events: ["response.deleted"] },
    { url: "https://hooks.example.com/x", events: ["response.started"], enabled: "yes" },
    { __proto__: { polluted: true }, name: "x", constructor: { prototype: { polluted: true } } },
  ];
  for (const body of bodies) {
    const r = await api.call(method, path, { raw: JSON.stringify(body), headers: { "content-type": "application/json" } });
    expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
    expect(["VALIDATION_ERROR", "NAME_REQUIRED"]).toContain(r.json.code);
  }
  for (const [raw, type, status] of [
    ["{", "application/json", 400],
    ["", "text/plain", 415],
    ["<xml/>", "application/xml", 415],
    ["a=b", "application/x-www-form-urlencoded", 415],
  ] as const) {
    const r = await api.call(method, path, { raw, headers: { "content-type": type } });
    expect([raw, r.status]).toEqual([raw, status]);
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(await snapshot()).toBe(before);
});
