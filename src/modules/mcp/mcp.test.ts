/**
 * The MCP endpoint (issue 29; docs/mcp.md) through the official SDK's own client
 * (StreamableHTTPClientTransport) over real HTTP against the real app listening on a socket, with
 * data made by the real intake and the real job runner (fixture models: transcripts, insights,
 * themes). Each tool's data are checked against the REST API's answer for the same question; the
 * scopes, the HTTP refusals (problem+json), paging, the size cap, the audit log and the per-key
 * rate limit are checked too. Runs on both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { FIXTURE_TRANSCRIPT, WEBM_FIXTURE_PATH } from "../../../test/helpers/fixtures.ts";
import { seedResponses } from "../../../test/helpers/seed-responses.ts";
import { listAuditEntries } from "../audit/service.ts";
import { updateWorkspace } from "../workspaces/service.ts";
import { addUser, signIn } from "../../../test/helpers/console-session.ts";
import { MAX_RESULT_CHARS } from "./bounds.ts";

const ANSWERS = [
  "Shipping cost was way too high for such a small order.",
  "The delivery fee surprised me at checkout, shipping is expensive.",
  "Shipping costs more than the product itself, that is crazy.",
  "Please lower the shipping fees, they are far too expensive.",
  "Expensive shipping, I almost cancelled the order because of the delivery cost.",
  "The support team was friendly and solved my problem quickly.",
  "Customer service answered my email within an hour, great help.",
  "Great customer support, they fixed my account issue fast.",
  "Support replied quickly and the agent was really friendly.",
  "Customer support was excellent and very responsive.",
  "The app crashes every time I open the camera.",
  "The mobile app keeps crashing after the latest update.",
];

let api: TestApi;
let stopProcessing: () => Promise<void>;
let server: { stop(force?: boolean): unknown; port: number | undefined };
let mcpUrl: string;
let link: any;
let voiceResponse: string;
const clients: Client[] = [];

/** Signed audio URLs carry the second they were made: compare them without `exp` and `sig`. */
const unsigned = (v: unknown) => JSON.parse(JSON.stringify(v).replace(/exp=\d+&sig=[A-Za-z0-9_-]+/g, "exp=&sig="));

async function connect(key: string | null): Promise<Client> {
  const client = new Client({ name: "earshot-test", version: "1.0.0" });
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/** Calls a tool; returns its JSON, its note (second text block) and whether it is an error. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r: any = await client.callTool({ name, arguments: args });
  const texts = (r.content as { type: string; text: string }[]).map((c) => c.text);
  let json: any = null;
  try {
    json = JSON.parse(texts[0]!);
  } catch {
    json = null;
  }
  return { json, text: texts[0]!, note: texts[1] ?? null, isError: r.isError === true };
}

async function rest(path: string): Promise<any> {
  const r = await api.call("GET", path);
  expect(r.status).toBe(200);
  return r.json;
}

async function submit(base: string, question: string, value: string): Promise<void> {
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${question}/`, { key: null, body: { value } })).status).toBe(200);
  expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
}

const jsonHeaders = () => ({ "content-type": "application/json", accept: "application/json, text/event-stream" });

const mcpPost = (key: string | null, body: unknown) =>
  fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });

const newKey = async (name: string, scopes: string[]) =>
  (await api.call("POST", "/api/v1/tokens/", { body: { name, scopes } })).json as { key: string; uuid: string };

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" });
  stopProcessing = (await startProcessing(api)).stop;
  const created = await api.call("POST", "/api/v1/links/", {
    body: {
      name: "Checkout feedback",
      questions: [
        { prompt: "What should we improve?", type: "text", field_key: "improve" },
        { prompt: "Tell us more", type: "voice", field_key: "voice_note", required: false },
        { prompt: "Rate us", type: "rating", field_key: "stars", required: false },
      ],
    },
  });
  expect(created.status).toBe(201);
  link = created.json;
  const [textQ, voiceQ] = link.questions.map((q: any) => q.uuid);
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  for (const text of ANSWERS) await submit(base, textQ, text);
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  const webm = new Uint8Array(fs.readFileSync(WEBM_FIXTURE_PATH));
  const up = await api.call("POST", `${base}/sessions/${sid}/answers/${voiceQ}/audio/`, { key: null, raw: webm, headers: { "content-type": "audio/webm" } });
  expect(up.status).toBeLessThan(300);
  await api.call("PUT", `${base}/sessions/${sid}/answers/${textQ}/`, { key: null, body: { value: "The app crashed when I recorded this." } });
  expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  // Every answer analysed and the themes built (a rebuild after the last one), as an operator would see them.
  const themes = `/api/v1/links/${link.uuid}/themes/`;
  await waitFor(async () => (await rest(`${themes}status/`)).answers_pending === 0, 90_000, "answers analysed");
  expect((await api.call("POST", `${themes}rebuild/`, { body: {} })).status).toBe(202);
  await waitFor(
    async () => {
      const s = await rest(`${themes}status/`);
      return s.state === "ready" && s.answers_pending === 0 && s.built_at;
    },
    90_000,
    "themes ready",
  );
  const voice = await rest(`/api/v1/links/${link.uuid}/responses/?search=${encodeURIComponent("recorded")}`);
  voiceResponse = voice.results[0].uuid;
  await waitFor(
    async () => (await rest(`/api/v1/responses/${voiceResponse}/`)).answers.find((a: any) => a.response_type === "voice")?.transcription_status === "completed",
    60_000,
    "voice transcribed",
  );
  const listening = api.app.listen({ port: 0, hostname: "127.0.0.1" });
  server = { stop: (f) => listening.server!.stop(f), port: listening.server!.port };
  mcpUrl = `http://127.0.0.1:${server.port}/api/mcp/`;
}, 240_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  server?.stop(true);
  await stopProcessing?.();
  await api?.close();
});

describe("MCP endpoint through the SDK's client", () => {
  test("lists the six read-only tools, each naming its scope", async () => {
    const client = await connect(api.ws.api_key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["list_links", "search_responses", "get_response", "link_stats", "list_themes", "period_summary"]);
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(t.description).toMatch(/needs the scope (links|responses):read/);
    }
    expect(tools.find((t) => t.name === "list_links")!.description).toContain("links:read");
    expect(client.getServerVersion()?.name).toBe("earshot");
  });

  test("each tool answers what the REST API answers for the same question", async () => {
    const client = await connect(api.ws.api_key);
    const links = await call(client, "list_links", { limit: 50 });
    const restLinks = await rest("/api/v1/links/?page_size=50");
    expect(links.isError).toBe(false);
    expect(links.json.count).toBe(restLinks.count);
    expect(links.json.results).toEqual(restLinks.results);
    expect(links.json.results[0].uuid).toBe(link.uuid);

    const found = await call(client, "search_responses", { link_uuid: link.uuid, search: "shipping", limit: 50 });
    const restFound = await rest(`/api/v1/links/${link.uuid}/responses/?search=shipping&page_size=50`);
    expect(found.json.count).toBe(5);
    expect(unsigned(found.json.results)).toEqual(unsigned(restFound.results));

    const filtered = { sentiment: "negative", since: "2020-01-01", until: "2100-12-31", actionable: true, status: "all" };
    const mcpFiltered = await call(client, "search_responses", { ...filtered, limit: 50 });
    const restFiltered = await rest(`/api/v1/responses/?${new URLSearchParams({ ...filtered, actionable: "true", page_size: "50" })}`);
    expect(mcpFiltered.isError).toBe(false);
    expect(mcpFiltered.json.count).toBe(restFiltered.count);
    expect(unsigned(mcpFiltered.json.results)).toEqual(unsigned(restFiltered.results));

    const one = await call(client, "get_response", { response_uuid: voiceResponse });
    expect(unsigned(one.json)).toEqual(unsigned(await rest(`/api/v1/responses/${voiceResponse}/`)));
    const voice = one.json.answers.find((a: any) => a.response_type === "voice");
    expect(voice.transcription).toBe(FIXTURE_TRANSCRIPT);
    expect(one.json.answers.find((a: any) => a.response_type === "text").ai_insights.sentiment).toMatch(/positive|neutral|negative/);

    const stats = await call(client, "link_stats", { link_uuid: link.uuid, bucket: "week" });
    expect(stats.json).toEqual(await rest(`/api/v1/links/${link.uuid}/stats/?bucket=week`));
    expect(stats.json.responses.completed).toBe(ANSWERS.length + 1);

    const themes = await call(client, "list_themes", { link_uuid: link.uuid, limit: 50 });
    const restThemes = await rest(`/api/v1/links/${link.uuid}/themes/?page_size=50`);
    expect(themes.json.count).toBe(restThemes.count);
    expect(themes.json.count).toBeGreaterThan(0);
    expect(unsigned(themes.json.results)).toEqual(unsigned(restThemes.results));
    expect(themes.json.results.some((t: any) => t.quotes.length > 0)).toBe(true);
    const byTheme = await call(client, "search_responses", { theme: themes.json.results[0].uuid, limit: 50 });
    expect(unsigned(byTheme.json.results)).toEqual(unsigned((await rest(`/api/v1/responses/?theme=${themes.json.results[0].uuid}&page_size=50`)).results));
    expect(byTheme.json.count).toBeGreaterThan(0);

    const today = new Date().toISOString().slice(0, 10);
    const summary = await call(client, "period_summary", { link_uuid: link.uuid, until: today });
    expect(unsigned(summary.json)).toEqual(unsigned(await rest(`/api/v1/links/${link.uuid}/summary/?until=${today}`)));
    expect(summary.json.responses.count).toBe(ANSWERS.length + 1);
    expect(summary.json.markdown).toContain("Checkout feedback");
  });

  test("errors are the REST API's problems, as tool errors", async () => {
    const client = await connect(api.ws.api_key);
    const missing = await call(client, "link_stats", { link_uuid: crypto.randomUUID() });
    expect(missing.isError).toBe(true);
    expect(missing.json).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const bad = await call(client, "search_responses", { since: "yesterday" });
    expect(bad.isError).toBe(true);
    expect(bad.json.code).toBe("VALIDATION_ERROR");
    expect(bad.json.errors[0].pointer).toBe("/since");
    const valueAlone = await call(client, "search_responses", { value: "5" });
    expect(valueAlone.json.errors[0].pointer).toBe("/value");
    const tooMany = await call(client, "list_links", { limit: 500 });
    expect(tooMany.isError).toBe(true);
  });

  test("a tool is refused without its scope; the endpoint without a credential or any read scope", async () => {
    const linksOnly = await newKey("links reader", ["links:read"]);
    const client = await connect(linksOnly.key);
    expect((await call(client, "list_links")).isError).toBe(false);
    for (const [name, args] of [
      ["search_responses", {}],
      ["get_response", { response_uuid: voiceResponse }],
      ["link_stats", { link_uuid: link.uuid }],
      ["list_themes", { link_uuid: link.uuid }],
      ["period_summary", { link_uuid: link.uuid }],
    ] as const) {
      const r = await call(client, name, args);
      expect(r.isError).toBe(true);
      expect(r.json).toMatchObject({ status: 403, code: "INSUFFICIENT_SCOPE" });
      expect(r.json.detail).toContain("responses:read");
      expect(r.text).not.toContain("Shipping");
    }
    const responsesOnly = await newKey("responses reader", ["responses:read"]);
    const r = await call(await connect(responsesOnly.key), "list_links");
    expect(r.json.code).toBe("INSUFFICIENT_SCOPE");

    const none = await mcpPost(null, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(none.status).toBe(401);
    expect(none.headers.get("content-type")).toBe("application/problem+json");
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await none.json()).code).toBe("UNAUTHENTICATED");
    const webhooksOnly = await newKey("webhooks only", ["webhooks:read"]);
    const refused = await mcpPost(webhooksOnly.key, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect((await refused.json()).code).toBe("INSUFFICIENT_SCOPE");
    await expect(connect(webhooksOnly.key)).rejects.toThrow();
    // One JSON-RPC message per request: a batch would be several calls for one rate-limit charge.
    const batch = await mcpPost(api.ws.api_key, [{ jsonrpc: "2.0", id: 1, method: "tools/list" }]);
    expect(batch.status).toBe(400);
    expect((await batch.json()).code).toBe("VALIDATION_ERROR");
    const notJson = await fetch(mcpUrl, {
      method: "POST",
      headers: { "content-type": "text/plain", accept: "application/json, text/event-stream", authorization: `Bearer ${api.ws.api_key}` },
      body: "tools/list",
    });
    expect(notJson.status).toBe(415);
    expect((await notJson.json()).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const broken = await fetch(mcpUrl, { method: "POST", headers: { ...jsonHeaders(), authorization: `Bearer ${api.ws.api_key}` }, body: "{" });
    expect(broken.status).toBe(400);
    expect(broken.headers.get("content-type")).toBe("application/problem+json");
    expect((await broken.json()).code).toBe("INVALID_JSON");
  });

  test("a console session works with its CSRF token and origin; a revoked key stops at once", async () => {
    await addUser(api, "viewer@example.com", "viewer");
    const session = await signIn(api, "viewer@example.com");
    const origin = new URL(mcpUrl).origin;
    const asViewer = (headers: Record<string, string>) =>
      fetch(mcpUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", cookie: `earshot_session=${session.cookie}`, ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "link_stats", arguments: { link_uuid: link.uuid } } }),
      });
    const ok = await asViewer({ "x-csrf-token": session.csrf, origin });
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(JSON.parse(body.result.content[0].text)).toEqual(await rest(`/api/v1/links/${link.uuid}/stats/`));
    // A page of another origin cannot use a signed-in operator's cookie to read through the endpoint.
    const hostile: Record<string, string>[] = [{ origin }, { "x-csrf-token": session.csrf, origin: "http://evil.example" }];
    for (const headers of hostile) {
      const refused = await asViewer(headers);
      expect(refused.status).toBe(403);
      expect((await refused.json()).code).toBe("CSRF_FAILED");
    }

    const key = await newKey("revoked agent", ["links:read", "responses:read"]);
    const client = await connect(key.key);
    expect((await call(client, "list_links")).isError).toBe(false);
    expect((await api.call("DELETE", `/api/v1/tokens/${key.uuid}/`)).status).toBe(200);
    await expect(client.callTool({ name: "list_links", arguments: {} })).rejects.toThrow();
    const after = await mcpPost(key.key, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(after.status).toBe(401);
    expect((await after.json()).code).toBe("UNAUTHENTICATED");
  });

  test("every call is audited with the caller, answered or refused", async () => {
    const key = await newKey("audited agent", ["links:read"]);
    const client = await connect(key.key);
    await call(client, "list_links");
    await call(client, "link_stats", { link_uuid: link.uuid });
    await call(client, "list_links", { limit: 0 });
    const { results } = await listAuditEntries(api.db, api.ws.workspace_uuid, { actor: key.uuid, action: "mcp." }, 20, 0);
    const seen = results.map((e) => [e.action, e.target?.label]).reverse();
    expect(seen).toEqual([
      ["mcp.tool_called", "list_links"],
      ["mcp.tool_refused", "link_stats: INSUFFICIENT_SCOPE"],
      ["mcp.tool_refused", "list_links: INVALID_CALL"],
    ]);
    expect(results.every((e) => e.actor.type === "key" && e.actor.name === "audited agent" && e.client_address === "127.0.0.1")).toBe(true);
  });

  test("lists are paged with a cursor and every result stays within the character cap", async () => {
    const client = await connect(api.ws.api_key);
    const all = (await rest(`/api/v1/links/${link.uuid}/responses/?page_size=100`)).results.map((r: any) => r.uuid);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await call(client, "search_responses", { link_uuid: link.uuid, limit: 5, ...(cursor ? { cursor } : {}) });
      expect(page.json.count).toBe(all.length);
      seen.push(...page.json.results.map((r: any) => r.uuid));
      cursor = page.json.next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual(all);
    const wrong = await call(client, "search_responses", { cursor: "not-a-cursor" });
    expect(wrong.json).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ pointer: "/cursor" }] });

    // Long answers: a page keeps the responses that fit and continues after them; one response over the cap is cut.
    const big = (await api.call("POST", "/api/v1/links/", { body: { name: "Long answers", questions: [{ prompt: "Say everything", type: "text" }] } })).json;
    await seedResponses(api.db, api.ws.workspace_uuid, big, 12, (i) => `Answer ${i}: ${"very long feedback ".repeat(150)}`);
    const hugeLink = (await api.call("POST", "/api/v1/links/", { body: { name: "Huge answer", questions: [{ prompt: "Say it all", type: "text" }] } })).json;
    const [huge] = await seedResponses(api.db, api.ws.workspace_uuid, hugeLink, 1, () => "x".repeat(3 * MAX_RESULT_CHARS));
    const restBig = (await rest(`/api/v1/links/${big.uuid}/responses/?page_size=100&ordering=submitted_at`)).results.map((r: any) => r.uuid);
    const first = await call(client, "search_responses", { link_uuid: big.uuid, ordering: "submitted_at", limit: 12 });
    expect(first.text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    expect(first.json.results.length).toBeGreaterThan(1);
    expect(first.json.results.length).toBeLessThan(12);
    expect(first.note).toContain("continue with next_cursor");
    const rest2 = await call(client, "search_responses", { link_uuid: big.uuid, ordering: "submitted_at", limit: 12, cursor: first.json.next_cursor });
    expect(rest2.json.results[0].uuid).toBe(restBig[first.json.results.length]);
    const one = await call(client, "get_response", { response_uuid: huge });
    expect(one.text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    expect(one.json.uuid).toBe(huge);
    expect(one.note).toMatch(/^Truncated: \d+ strings? cut to \d+ characters/);
    expect(one.json.answers[0].text.endsWith("…")).toBe(true);
  });

  test("calls count against the key's per-minute rate limit like API requests", async () => {
    const other = await api.newWorkspace("Rate limited");
    await updateWorkspace(api.db, other.workspace_uuid, { requestsPerMinute: 3 });
    const ask = () => mcpPost(other.api_key, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_links", arguments: {} } });
    for (let i = 0; i < 3; i++) {
      const ok = await ask();
      expect(ok.status).toBe(200);
      expect(ok.headers.get("ratelimit-limit")).toBe("3");
      expect(ok.headers.get("ratelimit-remaining")).toBe(String(2 - i));
    }
    const limited = await ask();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("content-type")).toBe("application/problem+json");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await limited.json()).code).toBe("RATE_LIMITED");
    await expect(connect(other.api_key)).rejects.toThrow();
  });

  test("the path without its slash redirects with 308, which keeps the POST", async () => {
    const r = await fetch(mcpUrl.slice(0, -1), { method: "POST", redirect: "manual" });
    expect(r.status).toBe(308);
    expect(r.headers.get("location")).toBe("/api/mcp/");
    const viaRedirect = await fetch(mcpUrl.slice(0, -1), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${api.ws.api_key}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    expect(viaRedirect.status).toBe(200);
    expect((await viaRedirect.json()).result.tools).toHaveLength(6);
  });
});
