import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ALL_TYPE_QUESTIONS, createTestApi, type TestApi } from "../../../test/helpers/api.ts";

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

async function linkCount(): Promise<number> {
  return (await api.call("GET", "/api/v1/links/")).json.count;
}

describe("POST links/", () => {
  test("creates a link with questions of all 11 types in the spec's shape", async () => {
    const r = await api.call("POST", "/api/v1/links/", { body: { name: "  Onboarding survey ", questions: ALL_TYPE_QUESTIONS } });
    expect(r.status).toBe(201);
    const link = r.json;
    expect(link.name).toBe("Onboarding survey");
    expect(link.slug).toBe("onboarding-survey");
    expect(link.status).toBe("active");
    expect(link.response_count).toBe(0);
    expect(link.public_url).toBe(`http://localhost/w/${api.ws.workspace_slug}/i/onboarding-survey`);
    expect(link.date_created).toMatch(TS);
    expect(link.date_updated).toMatch(TS);
    expect(link.settings).toEqual({
      description: null,
      thankYouMessage: "Thanks for your response!",
      redirectUrl: null,
      tts_enabled: false,
      live_transcription: false,
      language: null,
      redact_pii: false,
      access: "open",
      // Issue 25 (DESIGN §13): unset, so the link behaves as before.
      close_at: null,
      response_limit: null,
      consent: null,
      hidden_fields: [],
      kiosk: null, // issue 29
    });
    expect(link.questions.map((q: any) => q.response_type)).toEqual(ALL_TYPE_QUESTIONS.map((q) => q.type));
    for (const q of link.questions) {
      expect(q.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(q.condition).toEqual({});
      expect(q.evaluator_config).toEqual({});
      expect(q.required).toBe(false);
      expect(q.enable_dynamic_probing).toBe(false);
      expect(q.fallback_to_text).toBe(true);
      expect(q.date_created).toMatch(TS);
    }
    expect(link.questions[0].configuration).toEqual({ max_duration: 60, enable_ai_evaluation: true });
    expect(link.questions[0].field_key).toBe("tell_us_in_your_own_words");
    expect(link.questions[3].configuration).toEqual({ options: ["Free", "Pro", "Enterprise"], allow_multiple: false });
    expect(link.questions[6].configuration.cards[1].media_type).toBe("video");
    const again = await api.call("GET", `/api/v1/links/${link.uuid}/`);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(link);
  });

  test("type defaults to voice; order defaults to the index; questions come back sorted by order", async () => {
    const r = await api.call("POST", "/api/v1/links/", {
      body: {
        name: "Ordering",
        questions: [
          { prompt: "Second", order: 5 },
          { prompt: "First", order: 1 },
          { prompt: "Tie A", order: 5 },
        ],
      },
    });
    expect(r.status).toBe(201);
    expect(r.json.questions.map((q: any) => [q.prompt, q.order, q.response_type])).toEqual([
      ["First", 1, "voice"],
      ["Second", 5, "voice"],
      ["Tie A", 5, "voice"],
    ]);
  });

  test("generated slugs and field keys are transliterated and made unique", async () => {
    const a = await api.call("POST", "/api/v1/links/", {
      body: { name: "Café Crème Ümlaut", questions: [{ prompt: "Your name?" }, { prompt: "Your name!" }] },
    });
    const b = await api.call("POST", "/api/v1/links/", { body: { name: "Café Crème Ümlaut" } });
    expect(a.json.slug).toBe("cafe-creme-uemlaut");
    expect(b.json.slug).toBe("cafe-creme-uemlaut-2");
    expect(a.json.questions.map((q: any) => q.field_key)).toEqual(["your_name", "your_name_2"]);
  });

  test("a given slug that is taken answers SLUG_CONFLICT", async () => {
    expect((await api.call("POST", "/api/v1/links/", { body: { name: "X", slug: "taken-slug" } })).status).toBe(201);
    const r = await api.call("POST", "/api/v1/links/", { body: { name: "Y", slug: "taken-slug" } });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("SLUG_CONFLICT");
    expect(r.headers.get("content-type")).toBe("application/problem+json");
  });

  test("conditions may only test an earlier question", async () => {
    const ok = await api.call("POST", "/api/v1/links/", {
      body: {
        name: "Conditional",
        questions: [
          { prompt: "Score", type: "rating", field_key: "score" },
          { prompt: "Why low?", type: "text", condition: { show_if: "field_value", field: "score", operator: "less_than", value: 3 } },
        ],
      },
    });
    expect(ok.status).toBe(201);
    expect(ok.json.questions[1].condition).toEqual({ show_if: "field_value", field: "score", operator: "less_than", value: 3 });
    const later = await api.call("POST", "/api/v1/links/", {
      body: {
        name: "Bad",
        questions: [
          { prompt: "Why?", type: "text", condition: { show_if: "field_value", field: "score", operator: "equals", value: "x" } },
          { prompt: "Score", type: "rating", field_key: "score" },
        ],
      },
    });
    expect(later.status).toBe(400);
    expect(later.json.errors).toEqual([{ pointer: "/questions/0/condition/field", message: expect.any(String) }]);
  });

  const before = { count: 0 };
  const invalid: [string, unknown, number, string, string?][] = [
    ["missing name", { questions: [] }, 400, "NAME_REQUIRED", "/name"],
    ["blank name", { name: "   " }, 400, "NAME_REQUIRED", "/name"],
    ["null name", { name: null }, 400, "NAME_REQUIRED", "/name"],
    ["numeric name", { name: 42 }, 400, "VALIDATION_ERROR", "/name"],
    ["huge name", { name: "x".repeat(201) }, 400, "VALIDATION_ERROR", "/name"],
    ["bad slug", { name: "A", slug: "Not A Slug" }, 400, "VALIDATION_ERROR", "/slug"],
    ["slug with control char", { name: "A", slug: "a\u0000b" }, 400, "VALIDATION_ERROR", "/slug"],
    ["unknown status", { name: "A", status: "archived" }, 400, "VALIDATION_ERROR", "/status"],
    ["unknown top-level key", { name: "A", colour: "red" }, 400, "VALIDATION_ERROR", "/colour"],
    ["questions not an array", { name: "A", questions: {} }, 400, "VALIDATION_ERROR", "/questions"],
    ["question without prompt", { name: "A", questions: [{ type: "text" }] }, 400, "VALIDATION_ERROR", "/questions/0/prompt"],
    ["unknown type", { name: "A", questions: [{ prompt: "P", type: "video" }] }, 400, "VALIDATION_ERROR", "/questions/0/type"],
    [
      "multiple_choice without options",
      {
        name: "A",
        questions: [
          { prompt: "P", type: "text" },
          { prompt: "Q", type: "multiple_choice", configuration: {} },
        ],
      },
      400,
      "VALIDATION_ERROR",
      "/questions/1/configuration/options",
    ],
    [
      "duplicate options",
      { name: "A", questions: [{ prompt: "Q", type: "multiple_choice", configuration: { options: ["a", "a"] } }] },
      400,
      "VALIDATION_ERROR",
      "/questions/0/configuration/options",
    ],
    [
      "unknown configuration key",
      { name: "A", questions: [{ prompt: "Q", type: "voice", configuration: { max_duration: 10, colour: 1 } }] },
      400,
      "VALIDATION_ERROR",
      "/questions/0/configuration/colour",
    ],
    [
      "max_duration out of range",
      { name: "A", questions: [{ prompt: "Q", type: "voice", configuration: { max_duration: 601 } }] },
      400,
      "VALIDATION_ERROR",
      "/questions/0/configuration/max_duration",
    ],
    [
      "rating scale_type unknown",
      { name: "A", questions: [{ prompt: "Q", type: "rating", configuration: { scale_type: "hearts" } }] },
      400,
      "VALIDATION_ERROR",
      "/questions/0/configuration/scale_type",
    ],
    [
      "image card with ftp url",
      { name: "A", questions: [{ prompt: "Q", type: "image_choice", configuration: { cards: [{ id: "a", label: "A", media_url: "ftp://x/y.png" }] } }] },
      400,
      "VALIDATION_ERROR",
      "/questions/0/configuration/cards/0/media_url",
    ],
    [
      "file_upload too large",
      { name: "A", questions: [{ prompt: "Q", type: "file_upload", configuration: { max_size_mb: 1000 } }] },
      400,
      "VALIDATION_ERROR",
      "/questions/0/configuration/max_size_mb",
    ],
    [
      "number min > max",
      { name: "A", questions: [{ prompt: "Q", type: "number", configuration: { min: 5, max: 1 } }] },
      400,
      "VALIDATION_ERROR",
      "/questions/0/configuration/min",
    ],
    ["partial condition", { name: "A", questions: [{ prompt: "Q", condition: { field: "x" } }] }, 400, "VALIDATION_ERROR", "/questions/0/condition"],
    [
      "less_than with string",
      {
        name: "A",
        questions: [
          { prompt: "S", field_key: "s" },
          { prompt: "Q", condition: { show_if: "field_value", field: "s", operator: "less_than", value: "3" } },
        ],
      },
      400,
      "VALIDATION_ERROR",
      "/questions/1/condition",
    ],
    ["bad field_key", { name: "A", questions: [{ prompt: "Q", field_key: "Bad Key" }] }, 400, "VALIDATION_ERROR", "/questions/0/field_key"],
    [
      "duplicate field_key",
      {
        name: "A",
        questions: [
          { prompt: "Q", field_key: "k" },
          { prompt: "R", field_key: "k" },
        ],
      },
      400,
      "VALIDATION_ERROR",
      "/questions/1/field_key",
    ],
    [
      "clarity_threshold > 1",
      { name: "A", questions: [{ prompt: "Q", evaluator_config: { clarity_threshold: 2 } }] },
      400,
      "VALIDATION_ERROR",
      "/questions/0/evaluator_config/clarity_threshold",
    ],
    ["redirectUrl javascript:", { name: "A", settings: { redirectUrl: "javascript:alert(1)" } }, 400, "VALIDATION_ERROR", "/settings/redirectUrl"],
    ["tts_enabled as string", { name: "A", settings: { tts_enabled: "yes" } }, 400, "VALIDATION_ERROR", "/settings/tts_enabled"],
    ["webhook over http", { name: "A", on_finished: { webhook_url: "http://example.com/hook" } }, 400, "VALIDATION_ERROR", "/on_finished/webhook_url"],
    [
      "webhook to cloud metadata",
      { name: "A", on_finished: { webhook_url: "https://169.254.169.254/latest" } },
      400,
      "VALIDATION_ERROR",
      "/on_finished/webhook_url",
    ],
    ["webhook to loopback", { name: "A", on_finished: { webhook_url: "https://127.0.0.1:8443/hook" } }, 400, "VALIDATION_ERROR", "/on_finished/webhook_url"],
    ["body is an array", [1, 2], 400, "VALIDATION_ERROR", ""],
    ["deeply nested", { name: "A", settings: JSON.parse("[".repeat(2000) + "]".repeat(2000)) }, 400, "VALIDATION_ERROR", "/settings"],
  ];
  test.each(invalid)("%s → %d %s, nothing stored", async (_name, body, status, code, pointer) => {
    before.count = await linkCount();
    const r = await api.call("POST", "/api/v1/links/", { body });
    expect(r.status).toBe(status);
    expect(r.json.code).toBe(code);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
    if (typeof pointer === "string") expect(r.json.errors.some((e: any) => e.pointer.startsWith(pointer))).toBe(true);
    expect(r.text).not.toContain("at ");
    expect(await linkCount()).toBe(before.count);
  });

  test("malformed JSON, a wrong media type and an oversized body are refused", async () => {
    const n = await linkCount();
    const bad = await api.call("POST", "/api/v1/links/", { raw: '{"name": "x",', headers: { "content-type": "application/json" } });
    expect([bad.status, bad.json.code]).toEqual([400, "INVALID_JSON"]);
    const form = await api.call("POST", "/api/v1/links/", { raw: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect([form.status, form.json.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    const huge = await api.call("POST", "/api/v1/links/", { body: { name: "x".repeat(1024 * 1024 + 10) } });
    expect([huge.status, huge.json.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(await linkCount()).toBe(n);
  });

  test("names with HTML, SQL and unicode are stored and returned verbatim", async () => {
    const name = `<script>alert('x')</script> '; DROP TABLE links; -- 💬 \u202e`;
    const r = await api.call("POST", "/api/v1/links/", { body: { name } });
    expect(r.status).toBe(201);
    expect(r.json.name).toBe(name);
    const found = await api.call("GET", `/api/v1/links/?search=${encodeURIComponent("DROP TABLE")}`);
    expect(found.json.results.map((l: any) => l.name)).toEqual([name]);
  });
});

describe("GET, PATCH and DELETE links/{uuid}/", () => {
  test("another workspace's link and malformed uuids answer 404, never 403", async () => {
    const other = await api.newWorkspace("Other");
    const mine = (await api.call("POST", "/api/v1/links/", { body: { name: "Private" } })).json;
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { name: "Hijack" }],
      ["DELETE", undefined],
    ] as const) {
      const r = await api.call(method, `/api/v1/links/${mine.uuid}/`, { key: other.api_key, body });
      expect([r.status, r.json.code]).toEqual([404, "NOT_FOUND"]);
    }
    expect((await api.call("GET", "/api/v1/links/not-a-uuid/")).status).toBe(404);
    expect((await api.call("GET", "/api/v1/links/00000000-0000-0000-0000-000000000000/")).status).toBe(404);
    expect((await api.call("GET", `/api/v1/links/${mine.uuid}/`)).json.name).toBe("Private");
  });

  test("PATCH updates name, status, merges settings and keeps question uuids", async () => {
    const link = (
      await api.call("POST", "/api/v1/links/", {
        body: {
          name: "Patch me",
          settings: { description: "d" },
          questions: [
            { prompt: "Keep", type: "text" },
            { prompt: "Drop", type: "text" },
          ],
        },
      })
    ).json;
    const keep = link.questions[0];
    const r = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, {
      body: {
        name: "Patched",
        status: "paused",
        settings: { tts_enabled: true },
        questions: [
          { uuid: keep.uuid, prompt: "Kept", type: "text" },
          { prompt: "New", type: "yes_no" },
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.json.name).toBe("Patched");
    expect(r.json.status).toBe("paused");
    expect(r.json.settings.description).toBe("d");
    expect(r.json.settings.tts_enabled).toBe(true);
    expect(r.json.questions[0].uuid).toBe(keep.uuid);
    expect(r.json.questions[0].prompt).toBe("Kept");
    expect(r.json.questions[1].uuid).not.toBe(link.questions[1].uuid);
    expect(r.json.date_updated > link.date_updated).toBe(true);
    const bad = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { questions: [{ uuid: crypto.randomUUID(), prompt: "X" }] } });
    expect([bad.status, bad.json.errors[0].pointer]).toEqual([400, "/questions/0/uuid"]);
    const blank = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { name: "" } });
    expect(blank.json.code).toBe("NAME_REQUIRED");
  });

  test("DELETE answers 200 with a message and the link is gone", async () => {
    const link = (await api.call("POST", "/api/v1/links/", { body: { name: "Delete me" } })).json;
    const r = await api.call("DELETE", `/api/v1/links/${link.uuid}/`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ message: "Link deleted." });
    expect((await api.call("GET", `/api/v1/links/${link.uuid}/`)).status).toBe(404);
    expect((await api.call("DELETE", `/api/v1/links/${link.uuid}/`)).status).toBe(404);
  });
});

describe("GET links/", () => {
  test("paginates with absolute next/previous, clamps page_size, and rejects pages past the end", async () => {
    const fresh = await createTestApi();
    try {
      for (let i = 0; i < 5; i++) await fresh.call("POST", "/api/v1/links/", { body: { name: `L${i}` } });
      const p1 = await fresh.call("GET", "/api/v1/links/?page_size=2&status=all");
      expect(p1.json.count).toBe(5);
      expect(p1.json.results.map((l: any) => l.name)).toEqual(["L4", "L3"]);
      expect(p1.json.previous).toBeNull();
      expect(p1.json.next).toBe("http://localhost/api/v1/links/?page_size=2&status=all&page=2");
      const p3 = await fresh.call("GET", "/api/v1/links/?page_size=2&status=all&page=3");
      expect(p3.json.next).toBeNull();
      expect(p3.json.previous).toBe("http://localhost/api/v1/links/?page_size=2&status=all&page=2");
      const past = await fresh.call("GET", "/api/v1/links/?page_size=2&page=4");
      expect([past.status, past.json.code]).toEqual([404, "INVALID_PAGE"]);
      const clamped = await fresh.call("GET", "/api/v1/links/?page_size=1000");
      expect(clamped.json.results.length).toBe(5);
      const asc = await fresh.call("GET", "/api/v1/links/?ordering=name");
      expect(asc.json.results.map((l: any) => l.name)).toEqual(["L0", "L1", "L2", "L3", "L4"]);
      for (const q of ["page=0", "page=-1", "page=abc", "page_size=0", "page_size=1.5", "ordering=uuid", "status=deleted"]) {
        const r = await fresh.call("GET", `/api/v1/links/?${q}`);
        expect([q, r.status, r.json.code]).toEqual([q, 400, "VALIDATION_ERROR"]);
      }
      const dup = await fresh.call("GET", "/api/v1/links/?page=1&page=2&page_size=2");
      expect(dup.status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  test("page 1 of an empty list is 200 with count 0", async () => {
    const fresh = await createTestApi();
    try {
      const r = await fresh.call("GET", "/api/v1/links/");
      expect(r.json).toEqual({ count: 0, next: null, previous: null, results: [] });
    } finally {
      await fresh.close();
    }
  });

  test("the free plan allows 10 links, then LINK_LIMIT_REACHED", async () => {
    const free = await createTestApi({}, "free");
    try {
      for (let i = 0; i < 10; i++) expect((await free.call("POST", "/api/v1/links/", { body: { name: `F${i}` } })).status).toBe(201);
      const r = await free.call("POST", "/api/v1/links/", { body: { name: "One too many" } });
      expect([r.status, r.json.code]).toEqual([403, "LINK_LIMIT_REACHED"]);
      expect((await free.call("GET", "/api/v1/links/")).json.count).toBe(10);
    } finally {
      await free.close();
    }
  });
});
