/**
 * @module intake/closing.test
 * Closing a link (issue 25, DESIGN §13, docs/api.md "Closing a link") over real HTTP on a manual
 * clock: `settings.close_at` and `settings.response_limit` are validated, reported by the link
 * (`is_closed`, `closed_reason`) and by the intake API (409 LINK_CLOSED on a new session), and a
 * session started before the link closed still saves and submits — also when many submit at once
 * at the limit. Runs on both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createManualClock, formatMicros, type ManualClock } from "../../clock.ts";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";

let api: TestApi;
let clock: ManualClock;

beforeAll(async () => {
  clock = createManualClock(Date.UTC(2026, 11, 1, 12, 0, 0));
  api = await createTestApi({}, "enterprise", { clock });
});
afterAll(() => api.close());

/** One request over a real socket; 2xx JSON answers are checked against the OpenAPI document. */
const http = (method: string, path: string, body?: unknown, key: string | null = api.ws.api_key) => api.listen().call(method, path, { body, key });

const inSeconds = (s: number) => formatMicros(BigInt(clock.nowMs() + s * 1000) * 1000n);

async function newLink(settings: Record<string, unknown> = {}) {
  const r = await http("POST", "/api/v1/links/", { name: "Closing", settings, questions: [{ prompt: "Anything to add?", type: "text" }] });
  expect(r.status).toBe(201);
  return r.json;
}
const intake = (link: { slug: string }) => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
const start = (link: { slug: string }) => http("POST", `${intake(link)}/sessions/`, {}, null);
async function answerAndSubmit(link: any, sid: string) {
  const put = await http("PUT", `${intake(link)}/sessions/${sid}/answers/${link.questions[0].uuid}/`, { value: "late but welcome" }, null);
  expect(put.status).toBe(200);
  return http("POST", `${intake(link)}/sessions/${sid}/submit/`, undefined, null);
}

describe("closing a link", () => {
  test("a link created as the specification shows is open and reports every new settings member as null", async () => {
    const link = await newLink();
    expect(link.settings).toMatchObject({ close_at: null, response_limit: null, consent: null });
    expect(link).toMatchObject({ is_closed: false, closed_reason: null });
    expect((await start(link)).status).toBe(201);
  });

  test("close_at and response_limit are validated, and close_at is stored in the API's UTC format", async () => {
    for (const [settings, pointer] of [
      [{ close_at: "tomorrow" }, "/settings/close_at"],
      [{ close_at: "2026-12-31T23:59:59" }, "/settings/close_at"],
      [{ close_at: 1767225599 }, "/settings/close_at"],
      [{ response_limit: 0 }, "/settings/response_limit"],
      [{ response_limit: 1.5 }, "/settings/response_limit"],
      [{ response_limit: "3" }, "/settings/response_limit"],
      [{ response_limit: 10_000_001 }, "/settings/response_limit"],
    ] as const) {
      const r = await http("POST", "/api/v1/links/", { name: "Bad", settings });
      expect(r.status).toBe(400);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.json.code).toBe("VALIDATION_ERROR");
      expect(r.json.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
    const link = await newLink({ close_at: "2026-12-31T23:59:59+02:00", response_limit: 3 });
    expect(link.settings.close_at).toBe("2026-12-31T21:59:59.000000Z");
    expect(link.settings.response_limit).toBe(3);
    const patched = await http("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { close_at: null } });
    expect(patched.json.settings).toMatchObject({ close_at: null, response_limit: 3 });
  });

  test("close_at: from that time no new session starts (409 LINK_CLOSED); a session started before still submits", async () => {
    const link = await newLink({ close_at: inSeconds(60) });
    const before = await start(link);
    expect(before.status).toBe(201);
    expect((await http("GET", `${intake(link)}/`, undefined, null)).json.link).toMatchObject({ is_closed: false, closed_reason: null });

    clock.advance(60_000);
    const closed = await start(link);
    expect(closed.status).toBe(409);
    expect(closed.headers.get("content-type")).toContain("application/problem+json");
    expect(closed.json).toMatchObject({ status: 409, code: "LINK_CLOSED" });
    expect((await http("GET", `/api/v1/links/${link.uuid}/`)).json).toMatchObject({ is_closed: true, closed_reason: "close_at" });
    expect((await http("GET", `${intake(link)}/`, undefined, null)).json.link).toMatchObject({ is_closed: true, closed_reason: "close_at" });
    const listed = (await http("GET", "/api/v1/links/?page_size=100")).json.results.find((l: { uuid: string }) => l.uuid === link.uuid);
    expect(listed).toMatchObject({ is_closed: true, closed_reason: "close_at" });

    const submitted = await answerAndSubmit(link, before.json.session_id);
    expect(submitted.status).toBe(200);
    expect(submitted.json.status).toBe("completed");

    // Moving close_at later opens the link again.
    await http("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { close_at: inSeconds(3600) } });
    expect((await start(link)).status).toBe(201);
  });

  test("a paused link that is also closed answers LINK_PAUSED (status first)", async () => {
    const link = await newLink({ close_at: inSeconds(-1) });
    await http("PATCH", `/api/v1/links/${link.uuid}/`, { status: "paused" });
    expect((await start(link)).json.code).toBe("LINK_PAUSED");
  });

  test("response_limit counts submitted responses; sessions started before the limit still submit", async () => {
    const link = await newLink({ response_limit: 2 });
    const sessions = await Promise.all([start(link), start(link), start(link)]);
    for (const s of sessions) expect(s.status).toBe(201);
    // Started sessions do not count.
    expect((await http("GET", `/api/v1/links/${link.uuid}/`)).json).toMatchObject({ response_count: 0, is_closed: false });
    expect((await answerAndSubmit(link, sessions[0]!.json.session_id)).status).toBe(200);
    expect((await http("GET", `/api/v1/links/${link.uuid}/`)).json).toMatchObject({ response_count: 1, is_closed: false });
    expect((await answerAndSubmit(link, sessions[1]!.json.session_id)).status).toBe(200);
    expect((await http("GET", `/api/v1/links/${link.uuid}/`)).json).toMatchObject({ response_count: 2, is_closed: true, closed_reason: "response_limit" });
    expect((await start(link)).json).toMatchObject({ status: 409, code: "LINK_CLOSED" });
    // The third session started while the link was open: it may submit (the limit caps new sessions).
    expect((await answerAndSubmit(link, sessions[2]!.json.session_id)).status).toBe(200);
    expect((await http("GET", `/api/v1/links/${link.uuid}/`)).json).toMatchObject({ response_count: 3, is_closed: true });
    await http("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { response_limit: 5 } });
    expect((await start(link)).status).toBe(201);
  });

  test("race at the limit: sessions started while open all submit at once; afterwards every new session is refused", async () => {
    const link = await newLink({ response_limit: 1 });
    const sids: string[] = [];
    for (let i = 0; i < 6; i++) sids.push((await start(link)).json.session_id);
    for (const sid of sids) {
      const put = await http("PUT", `${intake(link)}/sessions/${sid}/answers/${link.questions[0].uuid}/`, { value: `answer ${sid}` }, null);
      expect(put.status).toBe(200);
    }
    // Six submits and six new sessions at the same moment, over real sockets.
    const [submits, starts] = await Promise.all([
      Promise.all(sids.map((sid) => http("POST", `${intake(link)}/sessions/${sid}/submit/`, undefined, null))),
      Promise.all(sids.map(() => start(link))),
    ]);
    expect(submits.map((r) => r.status)).toEqual(sids.map(() => 200));
    // A new session racing the first submit may start (the link was open when it asked); none after.
    for (const s of starts) expect([201, 409]).toContain(s.status);
    expect((await http("GET", `/api/v1/links/${link.uuid}/`)).json).toMatchObject({ response_count: 6, is_closed: true, closed_reason: "response_limit" });
    const after = await Promise.all(sids.map(() => start(link)));
    expect(after.map((r) => r.json.code)).toEqual(sids.map(() => "LINK_CLOSED"));
  });
});
