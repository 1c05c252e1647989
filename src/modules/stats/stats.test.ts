/**
 * A link's dashboard numbers (issue 11): every figure of `GET links/{uuid}/stats/` is compared
 * with what the seeded rows imply, computed here in TypeScript; plus the date range, weekly
 * buckets, the ETag/304 of live updates, the OpenAPI shape and the 404/400 answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { seedVariedResponses, VARIED_LINK, type SeededResponse } from "../../../test/helpers/seed-varied.ts";
import { linkStatsSchema } from "./model.ts";

let api: TestApi;
let link: any;
let seeded: SeededResponse[];

beforeAll(async () => {
  api = await createTestApi();
  link = (await api.call("POST", "/api/v1/links/", { body: VARIED_LINK })).json;
  seeded = await seedVariedResponses(api.db, api.ws.workspace_uuid, link, 400, 7);
});
afterAll(() => api.close());

const completed = (rs = seeded) => rs.filter((r) => r.status === "completed");
const answersOf = (key: string, rs = completed()) => rs.flatMap((r) => r.answers.filter((a) => a.field_key === key && a.value !== null));
const insightsOf = (rs = completed()) => rs.flatMap((r) => r.answers.flatMap((a) => (a.insights ? [a.insights] : [])));
const stats = async (query = "") => {
  const res = await api.call("GET", `/api/v1/links/${link.uuid}/stats/${query}`);
  expect(res.status).toBe(200);
  return res.json;
};

describe("GET links/{uuid}/stats/", () => {
  test("counts, completion rate and counts per day match the seeded responses", async () => {
    const s = await stats();
    expect(linkStatsSchema.safeParse(s).success).toBe(true);
    expect(s.responses.started).toBe(seeded.length);
    expect(s.responses.completed).toBe(completed().length);
    expect(s.responses.completion_rate).toBeCloseTo(completed().length / seeded.length, 10);
    const startedOn = (d: string) => seeded.filter((r) => r.date_created.startsWith(d)).length;
    const completedOn = (d: string) => completed().filter((r) => r.submitted_at!.startsWith(d)).length;
    expect(s.over_time.length).toBeGreaterThanOrEqual(30);
    for (const b of s.over_time) {
      expect(b.started).toBe(startedOn(b.date));
      expect(b.completed).toBe(completedOn(b.date));
    }
    expect(s.over_time.reduce((n: number, b: any) => n + b.started, 0)).toBe(seeded.length);
  });

  test("distributions, NPS and averages per question", async () => {
    const s = await stats();
    const q = (key: string) => s.questions.find((x: any) => x.field_key === key);
    expect(s.questions.map((x: any) => x.field_key)).toEqual(VARIED_LINK.questions.map((x) => x.field_key));
    const nps = answersOf("nps").map((a) => a.value as number);
    expect(q("nps").answered).toBe(nps.length);
    expect(q("nps").distribution.map((d: any) => d.value)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const d of q("nps").distribution) expect(d.count).toBe(nps.filter((v) => v === d.value).length);
    const promoters = nps.filter((v) => v >= 9).length;
    const detractors = nps.filter((v) => v <= 6).length;
    expect(q("nps").nps).toEqual({
      promoters,
      passives: nps.length - promoters - detractors,
      detractors,
      score: Math.round(((promoters - detractors) * 100) / nps.length),
    });
    expect(q("nps").average).toBeCloseTo(nps.reduce((a, b) => a + b, 0) / nps.length, 2);
    const stars = answersOf("support").map((a) => a.value as number);
    expect(q("support").distribution.map((d: any) => d.count)).toEqual([1, 2, 3, 4, 5].map((v) => stars.filter((x) => x === v).length));
    expect(q("support").nps).toBeUndefined();
    const features = answersOf("features").flatMap((a) => a.value as string[]);
    expect(q("features").distribution).toEqual(
      ["Search", "Export", "Alerts", "Reports"].map((o) => ({ value: o, label: o, count: features.filter((f) => f === o).length })),
    );
    expect(q("features").answered).toBe(answersOf("features").length);
    expect(q("design").distribution).toEqual([
      { value: "a", label: "Classic", count: answersOf("design").filter((a) => a.value === "a").length },
      { value: "b", label: "Modern", count: answersOf("design").filter((a) => a.value === "b").length },
    ]);
    expect(q("come_back").distribution).toEqual([
      { value: true, label: "Yes", count: answersOf("come_back").filter((a) => a.value === true).length },
      { value: false, label: "No", count: answersOf("come_back").filter((a) => a.value === false).length },
    ]);
    const team = answersOf("team_size").map((a) => a.value as number);
    expect(q("team_size").average).toBeCloseTo(team.reduce((a, b) => a + b, 0) / team.length, 2);
    expect(q("team_size").distribution.reduce((n: number, d: any) => n + d.count, 0)).toBe(team.length);
    expect(q("visit").distribution).toEqual([]);
    expect(q("visit").answered).toBe(completed().length);
    expect(q("email").answered).toBe(answersOf("email").length);
  });

  test("sentiment, topics and the latest actionable answers", async () => {
    const s = await stats();
    const all = insightsOf();
    for (const k of ["positive", "neutral", "negative"] as const) expect(s.sentiment[k]).toBe(all.filter((i) => i.sentiment === k).length);
    expect(s.sentiment.over_time.reduce((n: number, b: any) => n + b.negative, 0)).toBe(s.sentiment.negative);
    const mentions = new Map<string, number>();
    for (const r of completed()) for (const t of new Set(r.answers.flatMap((a) => a.insights?.key_topics ?? []))) mentions.set(t, (mentions.get(t) ?? 0) + 1);
    const expected = [...mentions.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([topic, count]) => ({ topic, count }));
    expect(s.topics).toEqual(expected.slice(0, 20));
    // A topic's count is what the inbox's topic filter finds.
    const inbox = await api.call("GET", `/api/v1/links/${link.uuid}/responses/?topic=${encodeURIComponent(s.topics[0].topic)}`);
    expect(inbox.json.count).toBe(s.topics[0].count);
    const actionable = completed()
      .flatMap((r) => r.answers.filter((a) => a.insights?.actionable).map((a) => ({ r, a })))
      .sort((x, y) => y.r.submitted_at!.localeCompare(x.r.submitted_at!));
    expect(s.latest_actionable.length).toBe(10);
    expect(s.latest_actionable.map((x: any) => x.date)).toEqual(actionable.slice(0, 10).map((x) => x.r.submitted_at));
    expect(s.latest_actionable[0]).toMatchObject({
      response_uuid: actionable[0]!.r.uuid,
      text: actionable[0]!.a.text,
      sentiment: actionable[0]!.a.insights!.sentiment,
    });
  });

  test("a date range and weekly buckets", async () => {
    const s = await stats("?since=2026-01-05&until=2026-01-18&bucket=week");
    const inStarted = seeded.filter((r) => r.date_created >= "2026-01-05" && r.date_created < "2026-01-19");
    const inCompleted = completed().filter((r) => r.submitted_at! >= "2026-01-05" && r.submitted_at! < "2026-01-19");
    expect(s.responses.started).toBe(inStarted.length);
    expect(s.responses.completed).toBe(inCompleted.length);
    expect(s.responses.completion_rate).toBeCloseTo(inStarted.filter((r) => r.status === "completed").length / inStarted.length, 10);
    // 2026-01-05 is a Monday: two whole ISO weeks.
    expect(s.over_time.map((b: any) => b.date)).toEqual(["2026-01-05", "2026-01-12"]);
    expect(s.over_time[0].completed).toBe(inCompleted.filter((r) => r.submitted_at! < "2026-01-12").length);
    const nps = answersOf("nps", inCompleted);
    expect(s.questions.find((x: any) => x.field_key === "nps").answered).toBe(nps.length);
    const empty = await stats("?since=2027-01-01&until=2027-01-03");
    expect(empty.responses).toEqual({ started: 0, completed: 0, completion_rate: null });
    expect(empty.over_time.map((b: any) => b.date)).toEqual(["2027-01-01", "2027-01-02", "2027-01-03"]);
    expect(empty.questions.find((x: any) => x.field_key === "nps").nps.score).toBeNull();
  });

  test("404 for another workspace's link, 400 with a pointer for a bad range", async () => {
    const other = await api.newWorkspace("Other");
    expect((await api.call("GET", `/api/v1/links/${link.uuid}/stats/`, { key: other.api_key })).status).toBe(404);
    expect((await api.call("GET", `/api/v1/links/not-a-uuid/stats/`)).status).toBe(404);
    const bad = await api.call("GET", `/api/v1/links/${link.uuid}/stats/?bucket=month`);
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].pointer).toBe("/bucket");
  });
});
