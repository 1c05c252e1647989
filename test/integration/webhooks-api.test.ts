/**
 * Webhook management API (DESIGN §8, §4; spec: Webhooks): records, validation with pointers,
 * scopes, workspace isolation, pagination, and the shape of delivery logs. In-process app over a
 * real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../helpers/api.ts";

let api: TestApi;
let path: string;
const URL_OK = "https://hooks.example.com/earshot";

beforeAll(async () => {
  api = await createTestApi();
  path = `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`;
});
afterAll(() => api.close());

async function keyWith(scopes: string[]): Promise<string> {
  const r = await api.call("POST", "/api/v1/tokens/", { body: { name: scopes.join(" "), scopes } });
  expect(r.status).toBe(201);
  return r.json.key;
}

describe("webhook records", () => {
  test("POST creates a webhook and shows its secret once", async () => {
    const r = await api.call("POST", path, { body: { url: URL_OK, events: ["response.submitted", "response.started", "response.submitted"] } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.json).sort()).toEqual(
      [
        "uuid",
        "url",
        "events",
        "enabled",
        "link_uuid",
        "disabled_reason",
        "date_created",
        "date_updated",
        "last_delivery_at",
        "last_delivery_status",
        "secret",
      ].sort(),
    );
    expect(r.json).toMatchObject({
      url: URL_OK,
      events: ["response.submitted", "response.started"],
      enabled: true,
      link_uuid: null,
      disabled_reason: null,
      last_delivery_at: null,
      last_delivery_status: null,
    });
    expect(r.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(r.json.secret.slice(6), "base64").length).toBe(24);
    expect(r.json.date_created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const got = await api.call("GET", `${path}${r.json.uuid}/`);
    expect(got.status).toBe(200);
    expect(got.json.secret).toBeUndefined();
    const { secret: _secret, ...record } = r.json;
    expect(got.json).toEqual(record);
  });

  test("link_uuid limits a webhook to one link of the workspace; another workspace's link or an unknown one is refused with a pointer", async () => {
    const link = await api.call("POST", "/api/v1/links/", { body: { name: "Filtered", questions: [{ prompt: "Why?", type: "text" }] } });
    const r = await api.call("POST", path, { body: { url: URL_OK, events: ["response.submitted"], link_uuid: link.json.uuid } });
    expect(r.status).toBe(201);
    expect(r.json.link_uuid).toBe(link.json.uuid);
    expect((await api.call("GET", `${path}${r.json.uuid}/`)).json.link_uuid).toBe(link.json.uuid);
    const other = await api.newWorkspace("Other links");
    const foreign = await api.call("POST", "/api/v1/links/", { key: other.api_key, body: { name: "Theirs", questions: [{ prompt: "Why?", type: "text" }] } });
    for (const link_uuid of [foreign.json.uuid, crypto.randomUUID()]) {
      const refused = await api.call("POST", path, { body: { url: URL_OK, events: ["response.submitted"], link_uuid } });
      expect(refused.status).toBe(400);
      expect(refused.json.code).toBe("VALIDATION_ERROR");
      expect(refused.json.errors).toEqual([{ pointer: "/link_uuid", message: expect.any(String) }]);
    }
  });

  test("enabled defaults to true and can be false at creation", async () => {
    const r = await api.call("POST", path, { body: { url: URL_OK, events: ["response.started"], enabled: false } });
    expect(r.json).toMatchObject({ enabled: false, disabled_reason: expect.any(String) });
  });

  test("invalid bodies answer VALIDATION_ERROR with pointers", async () => {
    const cases: Array<[unknown, string]> = [
      [{ url: "http://hooks.example.com/x", events: ["response.started"] }, "/url"],
      [{ url: "not a url", events: ["response.started"] }, "/url"],
      [{ url: "https://user:pw@hooks.example.com/", events: ["response.started"] }, "/url"],
      [{ events: ["response.started"] }, "/url"],
      [{ url: URL_OK }, "/events"],
      [{ url: URL_OK, events: [] }, "/events"],
      [{ url: URL_OK, events: ["response.deleted"] }, "/events/0"],
      [{ url: URL_OK, events: ["response.started"], enabled: "yes" }, "/enabled"],
      [{ url: URL_OK, events: ["response.started"], secret: "mine" }, "/secret"],
    ];
    for (const [body, pointer] of cases) {
      const r = await api.call("POST", path, { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.json.code).toBe("VALIDATION_ERROR");
      expect(r.json.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
  });

  test("PATCH updates url, events and enabled; DELETE answers 200 with a message", async () => {
    const created = (await api.call("POST", path, { body: { url: URL_OK, events: ["response.started"] } })).json;
    const patched = await api.call("PATCH", `${path}${created.uuid}/`, {
      body: { url: "https://other.example.com/h", events: ["response.submitted"], enabled: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      url: "https://other.example.com/h",
      events: ["response.submitted"],
      enabled: false,
      disabled_reason: "Disabled through the API.",
    });
    expect(patched.json.date_updated > created.date_updated).toBe(true);
    const bad = await api.call("PATCH", `${path}${created.uuid}/`, { body: { url: "http://x.example.com/" } });
    expect(bad.json).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ pointer: "/url" }] });
    const del = await api.call("DELETE", `${path}${created.uuid}/`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ message: expect.any(String) });
    expect((await api.call("GET", `${path}${created.uuid}/`)).status).toBe(404);
    expect((await api.call("DELETE", `${path}${created.uuid}/`)).status).toBe(404);
  });

  test("the list is paginated", async () => {
    const other = await api.newWorkspace("Paging");
    const p = `/api/v1/workspaces/${other.workspace_uuid}/webhooks/`;
    for (let i = 0; i < 3; i++) await api.call("POST", p, { key: other.api_key, body: { url: `${URL_OK}/${i}`, events: ["response.started"] } });
    const first = await api.call("GET", `${p}?page_size=2`, { key: other.api_key });
    expect(first.json).toMatchObject({ count: 3, previous: null });
    expect(first.json.results.length).toBe(2);
    expect(first.json.next).toBe(`http://localhost${p}?page_size=2&page=2`);
    const second = await api.call("GET", `${p}?page_size=2&page=2`, { key: other.api_key });
    expect(second.json.results.length).toBe(1);
    expect((await api.call("GET", `${p}?page=3&page_size=2`, { key: other.api_key })).json.code).toBe("INVALID_PAGE");
  });
});

describe("scopes and isolation", () => {
  test("reads need webhooks:read, writes webhooks:write", async () => {
    const readOnly = await keyWith(["webhooks:read"]);
    expect((await api.call("GET", path, { key: readOnly })).status).toBe(200);
    const denied = await api.call("POST", path, { key: readOnly, body: { url: URL_OK, events: ["response.started"] } });
    expect(denied.status).toBe(403);
    expect(denied.json.code).toBe("INSUFFICIENT_SCOPE");
    expect(denied.json.detail).toContain("webhooks:write");
    const linksOnly = await keyWith(["links:read"]);
    expect((await api.call("GET", path, { key: linksOnly })).json.code).toBe("INSUFFICIENT_SCOPE");
  });

  test("another workspace's uuid, in either position, answers 404", async () => {
    const other = await api.newWorkspace("Other");
    const mine = (await api.call("POST", path, { body: { url: URL_OK, events: ["response.started"] } })).json;
    const theirs = (
      await api.call("POST", `/api/v1/workspaces/${other.workspace_uuid}/webhooks/`, {
        key: other.api_key,
        body: { url: URL_OK, events: ["response.started"] },
      })
    ).json;
    const foreignPath = `/api/v1/workspaces/${other.workspace_uuid}/webhooks/`;
    expect((await api.call("GET", foreignPath)).json.code).toBe("NOT_FOUND");
    expect((await api.call("POST", foreignPath, { body: { url: URL_OK, events: ["response.started"] } })).status).toBe(404);
    expect((await api.call("GET", `${foreignPath}${mine.uuid}/`)).status).toBe(404);
    for (const [method, suffix] of [
      ["GET", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["POST", "rotate-secret/"],
      ["POST", "test/"],
      ["GET", "deliveries/"],
    ] as const) {
      const r = await api.call(method, `${path}${theirs.uuid}/${suffix}`, method === "PATCH" ? { body: { enabled: false } } : {});
      expect(r.status, `${method} ${suffix}`).toBe(404);
      expect(r.json.code).toBe("NOT_FOUND");
    }
    expect((await api.call("GET", `${path}not-a-uuid/`)).status).toBe(404);
    expect((await api.call("GET", `/api/v1/workspaces/not-a-uuid/webhooks/`)).status).toBe(404);
    const still = await api.call("GET", `/api/v1/workspaces/${other.workspace_uuid}/webhooks/${theirs.uuid}/`, { key: other.api_key });
    expect(still.json.enabled).toBe(true);
  });
});

describe("delivery log endpoints", () => {
  test("test/ queues a delivery that the log lists; unknown deliveries answer 404", async () => {
    const hook = (await api.call("POST", path, { body: { url: URL_OK, events: ["response.started"] } })).json;
    const empty = await api.call("GET", `${path}${hook.uuid}/deliveries/`);
    expect(empty.json).toEqual({ count: 0, next: null, previous: null, results: [] });
    const sent = await api.call("POST", `${path}${hook.uuid}/test/`);
    expect(sent.status).toBe(202);
    expect(Object.keys(sent.json).sort()).toEqual(
      [
        "uuid",
        "event_id",
        "event_type",
        "state",
        "attempts",
        "last_status_code",
        "response_excerpt",
        "duration_ms",
        "last_error",
        "next_attempt_at",
        "date_created",
        "date_updated",
      ].sort(),
    );
    expect(sent.json).toMatchObject({ event_type: "webhook.test", state: "pending", attempts: 0, event_id: expect.stringMatching(/^msg_/) });
    const list = await api.call("GET", `${path}${hook.uuid}/deliveries/?state=pending`);
    expect(list.json.results.map((d: { uuid: string }) => d.uuid)).toEqual([sent.json.uuid]);
    expect((await api.call("GET", `${path}${hook.uuid}/deliveries/?state=odd`)).json.code).toBe("VALIDATION_ERROR");
    const detail = await api.call("GET", `${path}${hook.uuid}/deliveries/${sent.json.uuid}/`);
    expect(detail.json.attempt_log).toEqual([]);
    const again = await api.call("POST", `${path}${hook.uuid}/deliveries/${sent.json.uuid}/redeliver/`);
    expect(again.json.uuid).toBe(sent.json.uuid);
    expect((await api.call("POST", `${path}${hook.uuid}/deliveries/${crypto.randomUUID()}/redeliver/`)).status).toBe(404);
  });
});
