/**
 * Response filters (issue 11): status, date range, sentiment, actionable, topic, a question's
 * value, search and their combination, on the lists and the export. The expected numbers are
 * computed from the seeded rows in TypeScript, independently of the SQL under test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { seedVariedResponses, VARIED_LINK, type SeededResponse } from "../../../test/helpers/seed-varied.ts";

let api: TestApi;
let link: any;
let seeded: SeededResponse[];

beforeAll(async () => {
  api = await createTestApi();
  link = (await api.call("POST", "/api/v1/links/", { body: VARIED_LINK })).json;
  seeded = await seedVariedResponses(api.db, api.ws.workspace_uuid, link, 300);
});
afterAll(() => api.close());

const at = (r: SeededResponse) => r.submitted_at ?? r.date_created;
const completed = () => seeded.filter((r) => r.status === "completed");
const answer = (r: SeededResponse, key: string) => r.answers.find((a) => a.field_key === key);

async function count(query: string, base = `/api/v1/links/${link.uuid}/responses/`): Promise<number> {
  const res = await api.call("GET", `${base}?${query}`);
  expect(res.status).toBe(200);
  return res.json.count;
}

describe("GET links/{uuid}/responses/ filters", () => {
  test("status: completed by default, started, all", async () => {
    expect(await count("")).toBe(completed().length);
    expect(await count("status=started")).toBe(seeded.length - completed().length);
    expect(await count("status=all")).toBe(seeded.length);
  });

  test("since/until: whole UTC days, inclusive, on submitted_at (date_created for started)", async () => {
    const inRange = (r: SeededResponse) => at(r) >= "2026-01-05" && at(r) < "2026-01-11";
    expect(await count("since=2026-01-05&until=2026-01-10")).toBe(completed().filter(inRange).length);
    expect(await count("status=all&since=2026-01-05&until=2026-01-10")).toBe(seeded.filter(inRange).length);
    expect(await count("since=2026-01-20T12:00:00Z")).toBe(completed().filter((r) => at(r) >= "2026-01-20T12:00:00").length);
    expect(await count("until=2026-01-20T12:00:00%2B02:00")).toBe(completed().filter((r) => at(r) <= "2026-01-20T10:00:00.000000Z").length);
  });

  test("sentiment, actionable and topic look at every analysed answer of the response", async () => {
    const has = (r: SeededResponse, p: (i: NonNullable<SeededResponse["answers"][number]["insights"]>) => boolean) =>
      r.answers.some((a) => a.insights && p(a.insights));
    expect(await count("sentiment=negative")).toBe(completed().filter((r) => has(r, (i) => i.sentiment === "negative")).length);
    expect(await count("actionable=true")).toBe(completed().filter((r) => has(r, (i) => i.actionable)).length);
    expect(await count("actionable=false")).toBe(completed().filter((r) => !has(r, (i) => i.actionable)).length);
    expect(await count("topic=PRICING")).toBe(completed().filter((r) => has(r, (i) => i.key_topics.includes("pricing"))).length);
    expect(await count("topic=mobile%20app")).toBe(completed().filter((r) => has(r, (i) => i.key_topics.includes("mobile app"))).length);
    expect(await count("topic=pric")).toBe(0);
    const both = completed().filter((r) => has(r, (i) => i.sentiment === "negative") && has(r, (i) => i.key_topics.includes("search"))).length;
    expect(both).toBeGreaterThan(0);
    expect(await count("sentiment=negative&topic=search")).toBe(both);
  });

  test("question + value: choices (single and several), numbers, ranges, yes/no, dates, text", async () => {
    const where = (key: string, p: (v: any, text: string | null) => boolean) =>
      completed().filter((r) => {
        const a = answer(r, key);
        return a && a.value !== null && p(a.value, a.text);
      }).length;
    expect(await count("question=features&value=export")).toBe(where("features", (v) => v.includes("Export")));
    expect(await count(`question=${link.questions.find((q: any) => q.field_key === "plan").uuid}&value=Pro`)).toBe(where("plan", (v) => v === "Pro"));
    expect(await count("question=design&value=b")).toBe(where("design", (v) => v === "b"));
    expect(await count("question=nps&value=10")).toBe(where("nps", (v) => v === 10));
    expect(await count("question=nps&value_min=9")).toBe(where("nps", (v) => v >= 9));
    expect(await count("question=nps&value_min=0&value_max=6")).toBe(where("nps", (v) => v <= 6));
    expect(await count("question=come_back&value=no")).toBe(where("come_back", (v) => v === false));
    expect(await count("question=come_back&value=true")).toBe(where("come_back", (v) => v === true));
    expect(await count("question=started_on&value=2025-03-15")).toBe(where("started_on", (v) => v === "2025-03-15"));
    expect(await count("question=notes&value=PAYMENT%20step")).toBe(where("notes", (_v, t) => /payment step/i.test(t ?? "")));
    expect(await count("question=visit&value=slow")).toBe(completed().filter((r) => /slow/.test(answer(r, "visit")!.text ?? "")).length);
    expect(await count("question=email")).toBe(where("email", () => true));
    expect(await count("question=nps&value=banana")).toBe(0);
  });

  test("search includes transcripts and combines with the other filters", async () => {
    const slow = completed().filter((r) => r.answers.some((a) => /froze/.test(a.text ?? "")));
    expect(await count("search=froze")).toBe(slow.length);
    expect(await count("search=froze&question=come_back&value=yes")).toBe(slow.filter((r) => answer(r, "come_back")?.value === true).length);
  });

  test("the workspace-wide list takes the same filters", async () => {
    expect(await count(`link=${link.uuid}&sentiment=positive&status=all`, "/api/v1/responses/")).toBe(
      seeded.filter((r) => r.answers.some((a) => a.insights?.sentiment === "positive")).length,
    );
  });

  test("bad filters answer 400 with a pointer", async () => {
    for (const [query, pointer] of [
      ["since=yesterday", "/since"],
      ["until=2026-13-01T00:00Z", "/until"],
      ["sentiment=angry", "/sentiment"],
      ["actionable=maybe", "/actionable"],
      ["value=3", "/value"],
      ["question=nps&value_min=lots", "/value_min"],
    ] as const) {
      const res = await api.call("GET", `/api/v1/links/${link.uuid}/responses/?${query}`);
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("VALIDATION_ERROR");
      expect(res.json.errors.map((e: any) => e.pointer)).toContain(pointer);
    }
  });
});

describe("export of the current filter", () => {
  test("CSV and JSONL hold exactly the filtered responses", async () => {
    const expected = completed().filter((r) => r.answers.some((a) => a.insights?.key_topics.includes("support")));
    const csv = await api.call("GET", `/api/v1/links/${link.uuid}/responses/export/?status=completed&topic=support`);
    expect(csv.status).toBe(200);
    const rows = parse(csv.text, { columns: true }) as { response_uuid: string }[];
    expect(rows.map((r) => r.response_uuid).sort()).toEqual(expected.map((r) => r.uuid).sort());
    const jsonl = await api.call("GET", `/api/v1/links/${link.uuid}/responses/export/?format=jsonl&since=2026-01-10&until=2026-01-10&status=all`);
    const lines = jsonl.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.uuid).sort()).toEqual(
      seeded
        .filter((r) => at(r).startsWith("2026-01-10"))
        .map((r) => r.uuid)
        .sort(),
    );
    const all = await api.call("GET", `/api/v1/links/${link.uuid}/responses/export/?format=jsonl`);
    expect(all.text.trim().split("\n").length).toBe(seeded.length);
  });
});
