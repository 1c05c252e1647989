/**
 * Hostile answers the intake must refuse (issue 9, Low: validation gaps). Each was stored with a
 * 2xx before: impossible dates, numbers off the question's step, typed text on a voice question
 * that allows none, blank text and empty files counting as answers, files typed by their name,
 * unknown members in bodies, and malformed multipart answered as INVALID_JSON.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";

/** A real 1×1 PNG. */
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
const HTML = new TextEncoder().encode("<!doctype html><html><body><script>alert(document.cookie)</script></body></html>");

let api: TestApi;
let link: any;
const base = () => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
const q = (i: number) => link.questions[i];

beforeAll(async () => {
  api = await createTestApi();
  link = (
    await api.call("POST", "/api/v1/links/", {
      body: {
        name: "Validation",
        questions: [
          { prompt: "When?", type: "date" },
          { prompt: "How many?", type: "number", configuration: { min: 1, max: 10, step: 0.5 } },
          { prompt: "Say it", type: "voice", fallback_to_text: false },
          { prompt: "Comment", type: "text", required: true },
          { prompt: "Screenshot", type: "file_upload", configuration: { allowed_types: ["image/png"] } },
          { prompt: "Anything", type: "file_upload" },
          { prompt: "Notes", type: "file_upload", configuration: { allowed_types: [".txt"] }, required: false },
        ],
      },
    })
  ).json;
});
afterAll(() => api.close());

async function newSession(): Promise<string> {
  const r = await api.call("POST", `${base()}/sessions/`, { key: null, body: {} });
  expect(r.status).toBe(201);
  return r.json.session_id;
}
const put = (sid: string, i: number, body: unknown) => api.call("PUT", `${base()}/sessions/${sid}/answers/${q(i).uuid}/`, { key: null, body });
function upload(sid: string, i: number, bytes: Uint8Array, name: string, partType = "application/octet-stream") {
  const form = new FormData();
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: partType }), name);
  return api.call("POST", `${base()}/sessions/${sid}/answers/${q(i).uuid}/file/`, { key: null, raw: form as never });
}

describe("intake answer validation", () => {
  test("impossible dates are refused (2024-02-30, 2023-02-29, 2024-13-01); real ones, leap days included, are kept", async () => {
    const sid = await newSession();
    for (const bad of ["2024-02-30", "2023-02-29", "2024-13-01", "2024-04-31", "2024-00-10"]) {
      const r = await put(sid, 0, { value: bad });
      expect([bad, r.status, r.json.code, r.json.errors?.[0]?.pointer]).toEqual([bad, 400, "VALIDATION_ERROR", "/value"]);
    }
    expect((await put(sid, 0, { value: "2024-02-29" })).status).toBe(200);
  });

  test("numbers keep to the question's step, counted from min", async () => {
    const sid = await newSession();
    expect((await put(sid, 1, { value: 1.3 })).json).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ pointer: "/value" }] });
    expect((await put(sid, 1, { value: 2 })).status).toBe(200);
    expect((await put(sid, 1, { value: 2.5 })).status).toBe(200);
    expect((await put(sid, 1, { value: 0.1 + 0.2 + 1.2 })).status).toBe(200); // 1.5 with floating-point noise
  });

  test("a voice question with fallback_to_text false refuses typed text", async () => {
    const sid = await newSession();
    const r = await put(sid, 2, { value: "typed instead of spoken" });
    expect([r.status, r.json.code, r.json.errors[0].pointer]).toEqual([400, "VALIDATION_ERROR", "/value"]);
  });

  test("whitespace-only and zero-width-only text do not satisfy required", async () => {
    for (const blank of ["   \n\t ", "\u200B\u200C\uFEFF"]) {
      const sid = await newSession();
      expect((await put(sid, 3, { value: blank })).status).toBe(200);
      const submit = await api.call("POST", `${base()}/sessions/${sid}/submit/`, { key: null, body: {} });
      expect([submit.status, submit.json.errors?.[0]?.pointer]).toEqual([400, `/answers/${q(3).field_key}`]);
    }
  });

  test("a 0-byte file is refused", async () => {
    const sid = await newSession();
    const r = await upload(sid, 5, new Uint8Array(0), "empty.png", "image/png");
    expect([r.status, r.json.code]).toEqual([400, "VALIDATION_ERROR"]);
  });

  test("file types come from the bytes: HTML named evil.png is refused; a PNG is image/png whatever the part says; text is text/plain", async () => {
    const sid = await newSession();
    for (const i of [4, 5]) {
      const r = await upload(sid, i, HTML, "evil.png", "image/png");
      expect([i, r.status, r.json.code]).toEqual([i, 415, "UNSUPPORTED_MEDIA_TYPE"]);
    }
    expect((await upload(sid, 4, HTML, "evil.html", "image/png")).status).toBe(415);
    const png = await upload(sid, 4, PNG, "shot.bin", "text/html");
    expect(png.status).toBe(200);
    const page = await upload(sid, 5, HTML, "page.html", "text/html");
    expect(page.status).toBe(200);
    expect((await upload(sid, 6, PNG, "notes.txt", "text/plain")).status).toBe(415);
    expect((await upload(sid, 6, new TextEncoder().encode("plain notes\n"), "notes.txt")).status).toBe(200);
    const submit = await api.call("POST", `${base()}/sessions/${sid}/submit/`, { key: null, body: {} });
    expect(submit.status).toBe(400); // required text still missing; read the stored files as started
    const rec = (await api.call("GET", `/api/v1/links/${link.uuid}/responses/?status=started`)).json.results.find((r: any) => r.session_id === sid);
    const files = Object.fromEntries(rec.answers.filter((a: any) => a.file).map((a: any) => [a.question_uuid, a.file.content_type]));
    expect(files).toEqual({ [q(4).uuid]: "image/png", [q(5).uuid]: "text/plain", [q(6).uuid]: "text/plain" });
  });

  test("unknown members in intake bodies are refused with a pointer", async () => {
    const sid = await newSession();
    const r = await put(sid, 3, { value: "fine", note: "extra", "a/b": 1 });
    expect([r.status, r.json.code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(r.json.errors.map((e: any) => e.pointer)).toEqual(["/note", "/a~1b"]);
    const f = await api.call("PUT", `${base()}/sessions/${sid}/answers/${q(2).uuid}/follow-ups/0/`, { key: null, body: { value: "x", extra: true } });
    expect([f.status, f.json.errors?.[0]?.pointer]).toEqual([400, "/extra"]);
  });

  test("malformed multipart on file/ answers 400 VALIDATION_ERROR, not INVALID_JSON", async () => {
    const sid = await newSession();
    const r = await api.call("POST", `${base()}/sessions/${sid}/answers/${q(5).uuid}/file/`, {
      key: null,
      raw: new TextEncoder().encode("--nope\r\nthis is not multipart at all"),
      headers: { "content-type": "multipart/form-data; boundary=elsewhere" },
    });
    expect([r.status, r.headers.get("content-type"), r.json.code]).toEqual([400, "application/problem+json", "VALIDATION_ERROR"]);
  });
});
