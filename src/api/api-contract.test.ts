/**
 * Statuses, headers and messages the server sends, each matched against what the OpenAPI
 * document says (issue 13 "The API contract").
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";

let api: TestApi;
let doc: any;
beforeAll(async () => {
  api = await createTestApi();
  doc = (await api.call("GET", "/api/v1/openapi.json", { key: null })).json;
});
afterAll(() => api.close());

/** The documented response of `method path` for `status`, or undefined. */
const documented = (method: string, path: string, status: number) => doc.paths[path]?.[method]?.responses?.[String(status)];

test("a less_than condition with a string value says what is wrong, at /condition/value", async () => {
  const r = await api.call("POST", "/api/v1/links/", {
    body: {
      name: "A",
      questions: [
        { prompt: "Score", field_key: "s", type: "number" },
        { prompt: "Why?", condition: { show_if: "field_value", field: "s", operator: "less_than", value: "3" } },
      ],
    },
  });
  expect(r.status).toBe(400);
  expect(r.json.errors).toEqual([{ pointer: "/questions/1/condition/value", message: expect.stringContaining("less_than needs a numeric value") }]);
});

test("intake endpoints answer 413 and 415 where the document says they do", async () => {
  const link = await api.call("POST", "/api/v1/links/", { body: { name: "Limits", questions: [{ prompt: "Say", type: "text" }] } });
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}/sessions/`;
  const tpl = "/intake/{workspace_slug}/{link_slug}/sessions/";
  const s = await api.call("POST", base, { body: {}, key: null });
  const q = link.json.questions[0].uuid;
  const big = "x".repeat(2_000_000);
  const cases: [string, string, string, string, string, number][] = [
    ["post", base, tpl, "application/json", big, 413],
    ["put", `${base}${s.json.session_id}/answers/${q}/`, `${tpl}{session_id}/answers/{question_uuid}/`, "application/json", big, 413],
    ["put", `${base}${s.json.session_id}/answers/${q}/`, `${tpl}{session_id}/answers/{question_uuid}/`, "text/plain", "{}", 415],
    [
      "put",
      `${base}${s.json.session_id}/answers/${q}/follow-ups/0/`,
      `${tpl}{session_id}/answers/{question_uuid}/follow-ups/{index}/`,
      "text/plain",
      "{}",
      415,
    ],
    ["post", `${base}${s.json.session_id}/submit/`, `${tpl}{session_id}/submit/`, "application/json", big, 413],
  ];
  for (const [method, url, path, type, body, status] of cases) {
    const r = await api.call(method.toUpperCase(), url, { raw: body, headers: { "content-type": type }, key: null });
    expect([method, path, r.status]).toEqual([method, path, status]);
    expect(documented(method, path, status)?.content["application/problem+json"]).toBeDefined();
  }
  expect(doc.paths[`${tpl}{session_id}/submit/`].post.requestBody.content["application/json"].schema.maxProperties).toBe(0);
  expect(doc.paths[`${tpl}{session_id}/answers/{question_uuid}/file/`].post.requestBody.content["multipart/form-data"].schema.properties.file.format).toBe(
    "binary",
  );
});

test("401 carries WWW-Authenticate, keyed answers RateLimit-*, a missing slash 301 + Location, a wrong method 405 + Allow — all documented", async () => {
  const unauth = await api.call("GET", "/api/v1/links/", { key: null });
  expect(unauth.status).toBe(401);
  expect(unauth.headers.get("www-authenticate")).toContain("Bearer");
  expect(documented("get", "/links/", 401).headers["WWW-Authenticate"]).toBeDefined();
  const ok = await api.call("GET", "/api/v1/links/");
  for (const h of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]) {
    expect(ok.headers.get(h)).toMatch(/^\d+$/);
    expect(documented("get", "/links/", 200).headers[h]).toBeDefined();
  }
  const moved = await api.app.handle(new Request("http://localhost/api/v1/links?page=1", { headers: { authorization: `Bearer ${api.ws.api_key}` } }));
  expect(moved.status).toBe(301);
  expect(moved.headers.get("location")).toBe("/api/v1/links/?page=1");
  expect(doc.components.responses.MovedPermanently.headers.Location).toBeDefined();
  const wrong = await api.call("PUT", "/api/v1/links/", { body: {} });
  expect(wrong.status).toBe(405);
  expect(wrong.headers.get("allow")).toContain("GET");
  expect(doc.components.responses.MethodNotAllowed.headers.Allow).toBeDefined();
  expect(doc.components.schemas.Problem.properties.code.enum).toContain(wrong.json.code);
});
