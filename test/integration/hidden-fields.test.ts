/**
 * Hidden fields (issue 25; DESIGN §13; docs/api.md "Hidden fields") through a real `earshot serve`
 * over real HTTP, on the suite's engine: the declaration and its errors, the values a session start
 * sends (declared kept, undeclared ignored, bounds refused with problem+json), the response's
 * `hidden` in the API, the `hidden.<name>` filter, search, CSV and JSONL export, conditions on a
 * hidden field enforced on submit, and both webhook events at a real HTTPS receiver.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from "../helpers/https-receiver.ts";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-hidden-"));
let certs: TestCertificates;
let receiver: HttpsReceiver;
let server: RunningServer;
let ws: { workspace_uuid: string; workspace_slug: string; api_key: string };
let link: any;

type Reply = { status: number; type: string; json: any; text: string };

async function call(method: string, p: string, body?: unknown, key: string | null = ws.api_key): Promise<Reply> {
  const res = await fetch(server.baseUrl + p, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, type: res.headers.get("content-type") ?? "", json, text };
}

const intake = () => `/api/v1/intake/${ws.workspace_slug}/${link.slug}`;
const start = (body: unknown) => call("POST", `${intake()}/sessions/`, body, null);
const put = (sid: string, i: number, value: unknown) => call("PUT", `${intake()}/sessions/${sid}/answers/${link.questions[i].uuid}/`, { value }, null);
const submit = (sid: string) => call("POST", `${intake()}/sessions/${sid}/submit/`, {}, null);

/** Starts a session with `hidden`, answers the first question with `text`, submits; returns the response uuid. */
async function respond(hidden: Record<string, unknown> | undefined, text: string): Promise<string> {
  const s = await start(hidden === undefined ? {} : { hidden });
  expect(s.status).toBe(201);
  expect((await put(s.json.session_id, 0, text)).status).toBe(200);
  expect((await submit(s.json.session_id)).status).toBe(200);
  return s.json.response_uuid;
}

function expectProblem(r: Reply, status: number, code: string, pointer?: string) {
  expect(r.status).toBe(status);
  expect(r.type).toContain("application/problem+json");
  expect(r.json.code).toBe(code);
  if (pointer) expect(r.json.errors.map((e: any) => e.pointer)).toContain(pointer);
  expect(r.text).not.toContain(dataDir);
  expect(r.text).not.toMatch(/\bat .*\.ts:\d+/);
}

beforeAll(async () => {
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver({ certs });
  ws = JSON.parse((await runCli(["workspace", "create", "--name", "Hidden", "--plan", "enterprise", "--json"], { dataDir })).stdout);
  server = await startServer({ dataDir, env: { EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1", EARSHOT_WEBHOOK_CA_FILE: certs.caFile } });
  const hook = await call("POST", `/api/v1/workspaces/${ws.workspace_uuid}/webhooks/`, {
    url: receiver.url,
    events: ["response.started", "response.submitted"],
  });
  expect(hook.status).toBe(201);
  const created = await call("POST", "/api/v1/links/", {
    name: "Order feedback",
    settings: { hidden_fields: ["order_id", "plan"] },
    questions: [
      { prompt: "How was your order?", type: "text", field_key: "experience", required: true },
      // Shown (and so required) only for pro customers: a condition on a hidden field.
      {
        prompt: "What would you tell another pro customer?",
        type: "text",
        field_key: "pro_advice",
        required: true,
        condition: { show_if: "field_value", field: "plan", operator: "equals", value: "pro" },
      },
    ],
  });
  expect(created.status).toBe(201);
  link = created.json;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("declaring hidden fields", () => {
  test("settings.hidden_fields is returned; [] when none (a link as the specification shows it)", async () => {
    expect(link.settings.hidden_fields).toEqual(["order_id", "plan"]);
    const plain = await call("POST", "/api/v1/links/", { name: "Plain", questions: [{ prompt: "Hi?", type: "text" }] });
    expect(plain.json.settings.hidden_fields).toEqual([]);
    const patched = await call("PATCH", `/api/v1/links/${plain.json.uuid}/`, { settings: { hidden_fields: ["ticket"] } });
    expect(patched.status).toBe(200);
    expect(patched.json.settings.hidden_fields).toEqual(["ticket"]);
    expect(patched.json.settings.thankYouMessage).toBe("Thanks for your response!");
  });

  test.each([
    ["a name that is not field-key style", { hidden_fields: ["Order-ID"] }, [], "/settings/hidden_fields/0"],
    ["a name longer than 64", { hidden_fields: ["a".repeat(65)] }, [], "/settings/hidden_fields/0"],
    ["more than 20", { hidden_fields: Array.from({ length: 21 }, (_, i) => `f${i}`) }, [], "/settings/hidden_fields"],
    ["a repeated name", { hidden_fields: ["a", "a"] }, [], "/settings/hidden_fields"],
    ["not a list", { hidden_fields: "order_id" }, [], "/settings/hidden_fields"],
    [
      "a name that is a question's field_key",
      { hidden_fields: ["experience"] },
      [{ prompt: "x", type: "text", field_key: "experience" }],
      "/settings/hidden_fields/0",
    ],
    [
      "a condition on an undeclared name",
      { hidden_fields: ["plan"] },
      [{ prompt: "x", type: "text", condition: { show_if: "field_value", field: "tier", operator: "equals", value: "a" } }],
      "/questions/0/condition/field",
    ],
  ])("refuses %s (400 VALIDATION_ERROR)", async (_name, settings, questions, pointer) => {
    expectProblem(await call("POST", "/api/v1/links/", { name: "Bad", settings, questions }), 400, "VALIDATION_ERROR", pointer);
  });

  test("PATCH of settings alone may not drop a hidden field a condition tests", async () => {
    expectProblem(
      await call("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { hidden_fields: ["order_id"] } }),
      400,
      "VALIDATION_ERROR",
      "/questions/1/condition/field",
    );
    expect((await call("GET", `/api/v1/links/${link.uuid}/`)).json.settings.hidden_fields).toEqual(["order_id", "plan"]);
  });
});

describe("a session start's hidden values", () => {
  test.each([
    ["a value over 500 characters", { hidden: { order_id: "x".repeat(501) } }, "/hidden/order_id"],
    ["a value that is not a string", { hidden: { order_id: 123 } }, "/hidden/order_id"],
    ["a control character", { hidden: { order_id: "a\u0000b" } }, "/hidden/order_id"],
    ["hidden not an object", { hidden: ["order_id"] }, "/hidden"],
    ["more than 100 members", { hidden: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, "v"])) }, "/hidden"],
    ["an unknown member", { hidden: {}, extra: 1 }, "/extra"],
  ])("refuses %s (400 VALIDATION_ERROR)", async (_name, body, pointer) => {
    expectProblem(await start(body), 400, "VALIDATION_ERROR", pointer);
  });

  test("stores the declared values (500 characters kept whole), ignores the others; {} when none", async () => {
    const long = "é".repeat(500);
    const uuid = await respond({ order_id: "A-1001", plan: long, utm_source: "mail" }, "fine");
    // plan is not "pro": the conditioned question stays hidden and is not required
    const rec = (await call("GET", `/api/v1/responses/${uuid}/`)).json;
    expect(rec.hidden).toEqual({ order_id: "A-1001", plan: long });
    const none = (await call("GET", `/api/v1/responses/${await respond(undefined, "plain")}/`)).json;
    expect(none.hidden).toEqual({});
    const empty = (await call("GET", `/api/v1/responses/${await respond({ order_id: "" }, "empty")}/`)).json;
    expect(empty.hidden).toEqual({});
  });

  test("a session start without a body still works (as before hidden fields)", async () => {
    const res = await fetch(`${server.baseUrl}${intake()}/sessions/`, { method: "POST" });
    expect(res.status).toBe(201);
    const rec = (await call("GET", `/api/v1/responses/${((await res.json()) as any).response_uuid}/`)).json;
    expect(rec.hidden).toEqual({});
  });

  test("a condition on a hidden field is enforced on submit", async () => {
    const s = await start({ hidden: { order_id: "B-2", plan: "pro" } });
    expect((await put(s.json.session_id, 0, "great")).status).toBe(200);
    expectProblem(await submit(s.json.session_id), 400, "VALIDATION_ERROR", "/answers/pro_advice");
    expect((await put(s.json.session_id, 1, "go for it")).status).toBe(200);
    expect((await submit(s.json.session_id)).status).toBe(200);
  });
});

describe("finding and exporting by hidden values", () => {
  let c3: string;
  let c4: string;
  beforeAll(async () => {
    c3 = await respond({ order_id: "C-3003", plan: "basic" }, "slow delivery");
    c4 = await respond({ order_id: "C-4004" }, "quick delivery");
  });

  test("hidden.<name>= filters exactly; several filters all hold; a bad name is refused", async () => {
    const list = async (q: string) => (await call("GET", `/api/v1/links/${link.uuid}/responses/?${q}`)).json.results.map((r: any) => r.uuid);
    expect(await list("hidden.order_id=C-3003")).toEqual([c3]);
    expect(await list("hidden.order_id=c-3003")).toEqual([]);
    expect(await list("hidden.order_id=C-3003&hidden.plan=basic")).toEqual([c3]);
    expect(await list("hidden.order_id=C-4004&hidden.plan=basic")).toEqual([]);
    const workspaceWide = (await call("GET", "/api/v1/responses/?hidden.order_id=C-4004")).json.results.map((r: any) => r.uuid);
    expect(workspaceWide).toEqual([c4]);
    expectProblem(await call("GET", `/api/v1/links/${link.uuid}/responses/?hidden.Order=1`), 400, "VALIDATION_ERROR", "/hidden.Order");
    expectProblem(await call("GET", `/api/v1/links/${link.uuid}/responses/?hidden.order_id=${"x".repeat(501)}`), 400, "VALIDATION_ERROR", "/hidden.order_id");
  });

  test("search finds a response by a hidden value (prefix, case-insensitive)", async () => {
    const found = (await call("GET", `/api/v1/links/${link.uuid}/responses/?search=c-300`)).json.results.map((r: any) => r.uuid);
    expect(found).toEqual([c3]);
    const words = (await call("GET", `/api/v1/links/${link.uuid}/responses/?search=3003`)).json.results.map((r: any) => r.uuid);
    expect(words).toEqual([c3]);
  });

  test("erasure takes the hidden values out of search", async () => {
    const gone = await respond({ order_id: "Z-9999" }, "erase me");
    expect((await call("GET", "/api/v1/responses/?search=Z-9999")).json.count).toBe(1);
    expect((await call("DELETE", `/api/v1/responses/${gone}/`)).status).toBe(200);
    expect((await call("GET", "/api/v1/responses/?search=Z-9999")).json.count).toBe(0);
  });

  test("CSV has a hidden.<name> column per declared field; JSONL has the object; the filter applies", async () => {
    const csv = await call("GET", `/api/v1/links/${link.uuid}/responses/export/?format=csv`);
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(expect.arrayContaining(["hidden.order_id", "hidden.plan", "experience"]));
    const header = csv.text.split("\n")[0]!.split(",");
    expect(header.indexOf("hidden.plan")).toBe(header.indexOf("hidden.order_id") + 1);
    expect(rows.find((r) => r.response_uuid === c3)).toMatchObject({ "hidden.order_id": "C-3003", "hidden.plan": "basic" });
    expect(rows.find((r) => r.response_uuid === c4)).toMatchObject({ "hidden.order_id": "C-4004", "hidden.plan": "" });
    const workspace = parse((await call("GET", "/api/v1/responses/export/?format=csv&hidden.plan=basic")).text, { columns: true }) as Record<string, string>[];
    expect(workspace.map((r) => r.response_uuid)).toEqual([c3]);
    expect(workspace[0]).toMatchObject({ "hidden.order_id": "C-3003", "hidden.ticket": "" });
    const jsonl = (await call("GET", `/api/v1/links/${link.uuid}/responses/export/?format=jsonl&hidden.order_id=C-4004`)).text.trim().split("\n");
    expect(jsonl.map((l) => JSON.parse(l).hidden)).toEqual([{ order_id: "C-4004" }]);
  });
});

describe("webhooks", () => {
  test("response.started and response.submitted carry hidden", async () => {
    const uuid = await respond({ order_id: "W-77", utm: "ignored" }, "hooked");
    const mine = (rs: typeof receiver.requests) => rs.map((r) => JSON.parse(r.body)).filter((b) => b.data.response.uuid === uuid);
    await receiver.waitFor((rs) => mine(rs).length >= 2, 60_000);
    const events = mine(receiver.requests);
    expect(events.map((e) => e.type).sort()).toEqual(["response.started", "response.submitted"]);
    for (const e of events) expect(e.data.response.hidden).toEqual({ order_id: "W-77" });
  });
});
