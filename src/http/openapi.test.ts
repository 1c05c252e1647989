import { afterAll, beforeAll, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { toOpenApiPath } from "./openapi.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

test("the OpenAPI document is valid OpenAPI 3.1 (checked by a real validator)", async () => {
  const r = await api.call("GET", "/api/v1/openapi.json", { key: null });
  expect(r.status).toBe(200);
  expect(r.json.openapi).toBe("3.1.0");
  const validator = new Validator();
  const result = await validator.validate(r.json);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
});

test("every API route the server answers is documented, and every documented operation exists", async () => {
  const doc = (await api.call("GET", "/api/v1/openapi.json", { key: null })).json;
  const documented = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, object>)) for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${path}`);
  const served = new Set(
    api.app.routes
      .filter((r) => r.path.startsWith("/api/v1/") && r.path !== "/api/v1/openapi.json" && r.method !== "WS")
      .map((r) => `${r.method.toUpperCase()} ${toOpenApiPath(r.path)}`),
  );
  expect([...served].filter((s) => !documented.has(s))).toEqual([]);
  expect([...documented].filter((d) => !served.has(d))).toEqual([]);
});

test("the reference page is served from local assets only", async () => {
  const r = await api.call("GET", "/api/docs/", { key: null });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/html");
  expect(r.text).toContain("/links/{link_uuid}/");
  expect(r.text).not.toMatch(/<script[^>]+src=|<link[^>]+href="https?:/);
  // A table of contents, field tables with types and requiredness, and examples.
  expect(r.text).toContain('<nav id="contents" aria-label="Contents">');
  expect(r.text).toMatch(/<code>questions\[\]\.prompt<\/code> <span class="req">required<\/span><\/td><td>string ≤ 2000 chars<\/td>/);
  expect(r.text).toContain("curl -X POST &#39;http://localhost/api/v1/links/&#39;");
  expect(r.text).toMatch(/<h4>Request body<\/h4>/);
  const css = await api.call("GET", "/api/docs/reference.css", { key: null });
  expect(css.status).toBe(200);
  expect(css.headers.get("content-type")).toContain("text/css");
  expect(css.text).toContain("prefers-color-scheme: dark");
});
