import { afterAll, beforeAll, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { ALL_TYPE_QUESTIONS, createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { ERROR_CODES } from "../errors.ts";
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

test("API test answers are checked against the document: a drifting body throws, the real one passes", async () => {
  const { outputChecker } = await import("../../test/helpers/openapi-check.ts");
  const created = await api.call("POST", "/api/v1/links/", { body: { name: "Drift", questions: ALL_TYPE_QUESTIONS } });
  expect(created.status).toBe(201);
  const check = (body: unknown) => outputChecker().check("GET", `/api/v1/links/${created.json.uuid}/`, 200, "application/json", body);
  expect(() => check(created.json)).not.toThrow();
  expect(() => check({ ...created.json, date_created: "yesterday" })).toThrow(/date_created must match format "date-time"/);
  const rating = created.json.questions.findIndex((q: { response_type: string }) => q.response_type === "rating");
  const questions = structuredClone(created.json.questions);
  questions[rating].configuration.scale_type = "hearts";
  expect(() => check({ ...created.json, questions })).toThrow(/OpenAPI drift/);
  expect(() => check({ ...created.json, extra: 1 })).toThrow(/additional properties/);
  expect(() => outputChecker().check("GET", "/api/v1/nowhere/", 200, "application/json", {})).toThrow(/not documented/);
});

test("Question is a union on response_type carrying each type's configuration; Problem.code lists every error code", async () => {
  const doc = (await api.call("GET", "/api/v1/openapi.json", { key: null })).json;
  const s = doc.components.schemas;
  expect(s.Question.discriminator.propertyName).toBe("response_type");
  expect(Object.keys(s.Question.discriminator.mapping)).toHaveLength(11);
  expect(s.RatingConfiguration.properties.scale_type.enum).toEqual(["stars", "emojis", "nps", "numbers"]);
  expect(s.ImageChoiceConfiguration.properties.cards.items.properties.media_type.enum).toEqual(["image", "video"]);
  const create = doc.paths["/links/"].post.requestBody.content["application/json"].schema;
  const inputs = create.properties.questions.items.anyOf as {
    properties: { type: { const: string }; configuration: { properties?: Record<string, { enum?: string[] }> } };
  }[];
  expect(inputs.map((q) => q.properties.type.const)).toHaveLength(11);
  expect(inputs.find((q) => q.properties.type.const === "rating")!.properties.configuration.properties!.scale_type!.enum).toEqual([
    "stars",
    "emojis",
    "nps",
    "numbers",
  ]);
  expect(create.properties.settings.properties.thankYouMessage.default).toBe("Thanks for your response!");
  expect(s.Problem.properties.code.enum).toEqual(Object.keys(ERROR_CODES));
  expect(s.Answer.properties.transcription_status.enum).toContain("waiting_for_model");
  expect(s.Delivery.properties.event_type.enum).toEqual(["response.started", "response.submitted", "webhook.test"]);
  expect(s.CreatedToken.properties.key.pattern).toBe("^sk_live_[A-Za-z0-9]{40}$");
  expect(s.Settings.properties.live_transcription.default).toBe(false);
  expect(s.Link.properties.date_created.format).toBe("date-time");
  expect(s.Link.properties.public_url.format).toBe("uri");
  expect(doc.paths["/links/"].get.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/LinkPage");
  const page = doc.paths["/links/"].get.parameters.find((p: { name: string }) => p.name === "page_size");
  expect(page.schema).toMatchObject({ type: "integer", default: 20, maximum: 100 });
  expect(Object.keys(doc.webhooks)).toEqual(["response.started", "response.submitted", "webhook.test"]);
  expect(doc.webhooks["response.submitted"].post.parameters.map((p: { name: string }) => p.name)).toEqual([
    "webhook-id",
    "webhook-timestamp",
    "webhook-signature",
  ]);
  expect(Object.keys(doc.paths["/links/{link_uuid}/responses/export/"].get.responses["200"].content)).toEqual(["text/csv", "application/x-ndjson"]);
  expect(doc.paths["/links/"].get.responses["429"].headers["Retry-After"]).toBeDefined();
  expect(doc.paths["/links/"].get.responses["401"].headers["WWW-Authenticate"]).toBeDefined();
  expect(doc.paths["/links/"].get.responses["500"]).toBeDefined();
  expect(doc.paths["/responses/{response_uuid}/answers/{answer_uuid}/audio/"].get.security).toContainEqual({ signed_url: [] });
});
