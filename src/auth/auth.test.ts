import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { loadConfig } from "../config.ts";
import { isSecureTransport } from "./authenticate.ts";
import { generateApiKey, hashApiKey, isWellFormedApiKey, maskApiKey } from "./keys.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

describe("API keys", () => {
  test("keys are sk_live_ + 40 alphanumerics, stored only as SHA-256, shown masked", async () => {
    const key = generateApiKey();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    expect(new Set(Array.from({ length: 50 }, generateApiKey)).size).toBe(50);
    expect(maskApiKey(key)).toBe(`sk_live_${key.slice(8, 12)}…${key.slice(-4)}`);
    const rows = await api.db.selectFrom("api_tokens").selectAll().execute();
    for (const row of rows) expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.some((r) => r.key_hash === hashApiKey(api.ws.api_key))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(api.ws.api_key);
  });

  test("missing, malformed, unknown keys answer 401 problem+json with WWW-Authenticate", async () => {
    for (const key of [null, "nope", "sk_live_short", `sk_live_${"A".repeat(40)}`, `${api.ws.api_key} extra`]) {
      const r = await api.call("GET", "/api/v1/links/", { key });
      expect([String(key), r.status, r.json.code]).toEqual([String(key), 401, "UNAUTHENTICATED"]);
      expect(r.headers.get("www-authenticate")).toContain("Bearer");
      expect(r.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(isWellFormedApiKey(api.ws.api_key)).toBe(true);
  });

  test("POST/GET/DELETE tokens/: create shows the key once, list masks it, revoke is immediate", async () => {
    const created = await api.call("POST", "/api/v1/tokens/", { body: { name: "CI key", scopes: ["links:read"] } });
    expect(created.status).toBe(201);
    expect(created.json.key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    expect(created.json).toMatchObject({ name: "CI key", scopes: ["links:read"], last_used_at: null });
    expect(created.json.masked_key).toBe(maskApiKey(created.json.key));
    const list = await api.call("GET", "/api/v1/tokens/");
    const listed = list.json.results.find((t: any) => t.uuid === created.json.uuid);
    expect(listed).toEqual({
      uuid: created.json.uuid,
      name: "CI key",
      masked_key: created.json.masked_key,
      scopes: ["links:read"],
      date_created: created.json.date_created,
      last_used_at: null,
      created_by: null,
    });
    expect(list.text).not.toContain(created.json.key);
    expect((await api.call("GET", "/api/v1/links/", { key: created.json.key })).status).toBe(200);
    const used = (await api.call("GET", "/api/v1/tokens/")).json.results.find((t: any) => t.uuid === created.json.uuid);
    expect(used.last_used_at).toMatch(/Z$/);
    const insufficient = await api.call("POST", "/api/v1/links/", { key: created.json.key, body: { name: "No" } });
    expect([insufficient.status, insufficient.json.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    expect(insufficient.json.detail).toContain("links:write");
    const del = await api.call("DELETE", `/api/v1/tokens/${created.json.uuid}/`);
    expect([del.status, del.json.message]).toEqual([200, "Token revoked."]);
    expect((await api.call("GET", "/api/v1/links/", { key: created.json.key })).status).toBe(401);
    expect((await api.call("GET", "/api/v1/tokens/")).json.results.some((t: any) => t.uuid === created.json.uuid)).toBe(false);
    expect((await api.call("DELETE", `/api/v1/tokens/${created.json.uuid}/`)).status).toBe(404);
  });

  test("a key may revoke itself; the answer confirms it and the key is dead", async () => {
    const t = (await api.call("POST", "/api/v1/tokens/", { body: { name: "Self" } })).json;
    const r = await api.call("DELETE", `/api/v1/tokens/${t.uuid}/`, { key: t.key });
    expect(r.status).toBe(200);
    expect((await api.call("GET", "/api/v1/links/", { key: t.key })).status).toBe(401);
  });

  test("token input is validated", async () => {
    for (const body of [{}, { name: "" }, { name: "x", scopes: ["links:admin"] }, { name: "x", scopes: [] }, { name: 5 }, { name: "x", extra: true }]) {
      const r = await api.call("POST", "/api/v1/tokens/", { body });
      expect([JSON.stringify(body), r.status, r.json.code]).toEqual([JSON.stringify(body), 400, "VALIDATION_ERROR"]);
    }
  });

  test("another workspace's token answers 404", async () => {
    const other = await api.newWorkspace("Elsewhere");
    const r = await api.call("DELETE", `/api/v1/tokens/${other.token_uuid}/`);
    expect(r.status).toBe(404);
    expect((await api.call("GET", "/api/v1/links/", { key: other.api_key })).status).toBe(200);
  });

  test("GET workspace/ reports limits and usage", async () => {
    const fresh = await createTestApi({}, "pro");
    try {
      await fresh.call("POST", "/api/v1/links/", { body: { name: "One" } });
      await fresh.call("POST", "/api/v1/tokens/", { body: { name: "Two" } });
      const r = await fresh.call("GET", "/api/v1/workspace/");
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        uuid: fresh.ws.workspace_uuid,
        slug: fresh.ws.workspace_slug,
        plan: "pro",
        host: `http://localhost/w/${fresh.ws.workspace_slug}`,
        limits: { links: 100, requests_per_minute: 120 },
        usage: { links: 1, keys_created: 2, keys_active: 2 },
      });
      expect(r.json.usage.api_calls_today).toBe(3);
    } finally {
      await fresh.close();
    }
  });
});

describe("transport and rate limits", () => {
  test("keys over plain HTTP from a non-loopback peer answer HTTPS_REQUIRED", async () => {
    const strict = await createTestApi({ EARSHOT_ALLOW_INSECURE_HTTP: "0" });
    try {
      const r = await strict.call("GET", "/api/v1/links/");
      expect([r.status, r.json.code]).toEqual([403, "HTTPS_REQUIRED"]);
    } finally {
      await strict.close();
    }
    const config = loadConfig({ EARSHOT_TRUSTED_PROXIES: "10.0.0.5" });
    const req = (url: string, proto?: string) => new Request(url, { headers: proto ? { "x-forwarded-proto": proto } : {} });
    expect(isSecureTransport(req("https://x/api/v1/"), "203.0.113.9", config)).toBe(true);
    expect(isSecureTransport(req("http://x/api/v1/"), "127.0.0.1", config)).toBe(true);
    expect(isSecureTransport(req("http://x/api/v1/"), "::1", config)).toBe(true);
    expect(isSecureTransport(req("http://x/api/v1/"), "203.0.113.9", config)).toBe(false);
    expect(isSecureTransport(req("http://x/api/v1/", "https"), "10.0.0.5", config)).toBe(true);
    expect(isSecureTransport(req("http://x/api/v1/", "https"), "::ffff:10.0.0.5", config)).toBe(true);
    expect(isSecureTransport(req("http://x/api/v1/", "https"), "10.0.0.6", config)).toBe(false);
    expect(isSecureTransport(req("http://x/api/v1/", "http"), "10.0.0.5", config)).toBe(false);
  });

  test("RateLimit headers on every authenticated response; 429 with Retry-After past the plan's limit", async () => {
    const free = await createTestApi({}, "free");
    try {
      const first = await free.call("GET", "/api/v1/links/");
      expect(first.headers.get("ratelimit-limit")).toBe("30");
      expect(first.headers.get("ratelimit-remaining")).toBe("29");
      expect(Number(first.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
      const notFound = await free.call("GET", `/api/v1/links/${crypto.randomUUID()}/`);
      expect(notFound.status).toBe(404);
      expect(notFound.headers.get("ratelimit-remaining")).toBe("28");
      for (let i = 0; i < 28; i++) await free.call("GET", "/api/v1/links/");
      const limited = await free.call("GET", "/api/v1/links/");
      expect([limited.status, limited.json.code]).toEqual([429, "RATE_LIMITED"]);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get("ratelimit-remaining")).toBe("0");
      const otherKey = (await free.call("POST", "/api/v1/tokens/", { key: (await free.newWorkspace("W2", "free")).api_key, body: { name: "k" } })).json;
      expect((await free.call("GET", "/api/v1/links/", { key: otherKey.key })).status).toBe(200);
    } finally {
      await free.close();
    }
  });
});

describe("HTTP rules", () => {
  test("a path without its trailing slash answers 301 before authentication, for every method, query kept", async () => {
    for (const method of ["GET", "POST", "PATCH", "DELETE", "PUT"]) {
      const r = await api.call(method, "/api/v1/links?page=2&x=%20y", { key: null });
      expect([method, r.status, r.headers.get("location")]).toEqual([method, 301, "/api/v1/links/?page=2&x=%20y"]);
    }
    expect((await api.call("GET", "/api/v1/nothing-here", { key: null })).status).toBe(301);
  });

  test("a known path with an unsupported method answers 405 with Allow", async () => {
    const r = await api.call("PUT", "/api/v1/links/", { body: {} });
    expect([r.status, r.json.code]).toEqual([405, "METHOD_NOT_ALLOWED"]);
    expect(r.headers.get("allow")).toContain("GET");
    expect(r.headers.get("allow")).toContain("POST");
    const unknown = await api.call("GET", "/api/v1/nothing-here/");
    expect([unknown.status, unknown.json.code]).toEqual([404, "NOT_FOUND"]);
  });
});
