/**
 * Link input edge cases from issue 9 (Low): a repeated question uuid in PATCH, literal `search`
 * (`%`, `_`, `\` are not wildcards), and names or prompts made only of invisible characters.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

test("PATCH with the same question uuid twice answers 400 VALIDATION_ERROR with a pointer, and changes nothing", async () => {
  const link = (
    await api.call("POST", "/api/v1/links/", {
      body: {
        name: "Twice",
        questions: [
          { prompt: "One", type: "text" },
          { prompt: "Two", type: "text" },
        ],
      },
    })
  ).json;
  const [a, b] = link.questions;
  const r = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, {
    body: {
      questions: [
        { uuid: a.uuid, prompt: "One", type: "text" },
        { uuid: a.uuid, prompt: "One again", type: "text" },
        { uuid: b.uuid, prompt: "Two", type: "text" },
      ],
    },
  });
  expect([r.status, r.json.code]).toEqual([400, "VALIDATION_ERROR"]);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.json.errors).toEqual([{ pointer: "/questions/1/uuid", message: expect.any(String) }]);
  const after = (await api.call("GET", `/api/v1/links/${link.uuid}/`)).json;
  expect(after.questions.map((q: any) => [q.uuid, q.prompt])).toEqual([
    [a.uuid, "One"],
    [b.uuid, "Two"],
  ]);
});

test("search matches %, _ and \\ literally, case-insensitively", async () => {
  const names = ["100% satisfied", "100 percent", "snake_case survey", "snakeXcase survey", "back\\slash", "backslash", "Ünïcode Survey"];
  for (const name of names) expect((await api.call("POST", "/api/v1/links/", { body: { name } })).status).toBe(201);
  const search = async (s: string) =>
    ((await api.call("GET", `/api/v1/links/?search=${encodeURIComponent(s)}&page_size=100`)).json.results as { name: string }[]).map((l) => l.name).sort();
  expect(await search("0%")).toEqual(["100% satisfied"]);
  expect(await search("%")).toEqual(["100% satisfied"]);
  expect(await search("e_c")).toEqual(["snake_case survey"]);
  expect(await search("_")).toEqual(["snake_case survey"]);
  expect(await search("k\\s")).toEqual(["back\\slash"]);
  expect(await search("SNAKE_CASE")).toEqual(["snake_case survey"]);
  expect(await search("SURVEY")).toEqual(["snakeXcase survey", "snake_case survey", "Ünïcode Survey"].sort());
  expect(await search("Ünïcode")).toEqual(["Ünïcode Survey"]);
});

test("a name or prompt of only zero-width and other invisible characters counts as blank", async () => {
  for (const name of ["\u200b", "\u200b\u200c\u200d", " \u2060\ufeff ", "\u00ad", "\u3164"]) {
    const created = await api.call("POST", "/api/v1/links/", { body: { name } });
    expect([JSON.stringify(name), created.status, created.json.code, created.json.errors?.[0]?.pointer]).toEqual([
      JSON.stringify(name),
      400,
      "NAME_REQUIRED",
      "/name",
    ]);
  }
  const link = (await api.call("POST", "/api/v1/links/", { body: { name: "Visible\u200b" } })).json;
  expect(link.name).toBe("Visible\u200b");
  const patched = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { name: "\u200b\u200b" } });
  expect([patched.status, patched.json.code]).toEqual([400, "NAME_REQUIRED"]);
  const prompt = await api.call("POST", "/api/v1/links/", {
    body: {
      name: "Prompts",
      questions: [
        { prompt: "Fine", type: "text" },
        { prompt: "\u200b\u200d", type: "text" },
      ],
    },
  });
  expect([prompt.status, prompt.json.code]).toEqual([400, "VALIDATION_ERROR"]);
  expect(prompt.json.errors.map((e: any) => e.pointer)).toEqual(["/questions/1/prompt"]);
});
