/**
 * Issue 22 (Low): the multipart part of an intake file upload as a hostile client writes it —
 * an empty or missing file name, no part Content-Type, a name with a path, a `filename*` only —
 * answers 400 problem+json or stores the file under a safe name, never 500. Multipart sent to a
 * JSON endpoint is refused with a 4xx problem too. Raw bodies (not FormData, which always writes a name)
 * through the real app over a real database (both engines).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";

let api: TestApi;
let link: any;
const base = () => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
const BOUNDARY = "----earshotpart";

beforeAll(async () => {
  api = await createTestApi();
  link = (
    await api.call("POST", "/api/v1/links/", {
      body: {
        name: "File parts",
        questions: [
          { prompt: "Attach", type: "file_upload" },
          { prompt: "Comment", type: "text" },
        ],
      },
    })
  ).json;
});
afterAll(() => api.close());

/** A multipart body with one part named `file` whose head is `disposition` (+ `type` when given). */
function multipart(disposition: string, type: string | null, content = "hello, world\n"): string {
  const head = `Content-Disposition: form-data; name="file"${disposition}\r\n${type === null ? "" : `Content-Type: ${type}\r\n`}`;
  return `--${BOUNDARY}\r\n${head}\r\n${content}\r\n--${BOUNDARY}--\r\n`;
}

async function upload(body: string, target?: { method: string; path: string }) {
  const sid = (await api.call("POST", `${base()}/sessions/`, { key: null, body: {} })).json.session_id;
  return api.call(target?.method ?? "POST", target?.path ?? `${base()}/sessions/${sid}/answers/${link.questions[0].uuid}/file/`, {
    key: null,
    raw: body,
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
  });
}

function expectProblem(r: { status: number; headers: Headers; json: any; text: string }, status: number, code: string) {
  expect([r.status, r.json?.code]).toEqual([status, code]);
  expect(r.headers.get("content-type")).toContain("application/problem+json");
  expect(r.text).not.toContain("/work/");
}

test.each([
  ['filename=""', '; filename=""'],
  ["filename= (bare)", "; filename="],
  ["a name of blanks", '; filename="   "'],
  ["a name that is only a path", '; filename="../"'],
])("a file part with %s answers 400 VALIDATION_ERROR pointing at /file", async (_what, disposition) => {
  const r = await upload(multipart(disposition, "text/plain"));
  expectProblem(r, 400, "VALIDATION_ERROR");
  expect(r.json.errors).toEqual([{ pointer: "/file", message: expect.any(String) }]);
});

test("a part named file without any filename (a form field, or filename* only) answers 400, saying the part must be a file", async () => {
  for (const disposition of ["", "; filename*=UTF-8''%C3%A9t%C3%A9.txt"]) {
    const r = await upload(multipart(disposition, null));
    expectProblem(r, 400, "VALIDATION_ERROR");
    expect(r.json.errors).toEqual([{ pointer: "/file", message: expect.stringContaining("file name") }]);
  }
});

test("a part without Content-Type is judged by its bytes and stored; a name with directories keeps only its last segment", async () => {
  const plain = await upload(multipart('; filename="notes.txt"', null));
  expect(plain.status).toBe(200);
  expect(plain.json.value).toBe("notes.txt");
  const pathy = await upload(multipart('; filename="../../etc/passwd/notes.txt"', "text/plain"));
  expect(pathy.status).toBe(200);
  expect(pathy.json.value).toBe("notes.txt");
});

test("multipart sent to a JSON endpoint, an empty file name included, is refused with a 4xx problem+json", async () => {
  const sid = (await api.call("POST", `${base()}/sessions/`, { key: null, body: {} })).json.session_id;
  const answer = await upload(multipart('; filename=""', "text/plain"), {
    method: "PUT",
    path: `${base()}/sessions/${sid}/answers/${link.questions[1].uuid}/`,
  });
  expectProblem(answer, 415, "UNSUPPORTED_MEDIA_TYPE");
  expect(answer.headers.get("content-type")).toContain("application/problem+json");
  const created = await api.call("POST", "/api/v1/links/", {
    raw: multipart('; filename=""', null),
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
  });
  expect(created.status).toBeGreaterThanOrEqual(400);
  expect(created.status).toBeLessThan(500);
  expect(created.headers.get("content-type")).toContain("application/problem+json");
});
