/**
 * Live updates by polling with ETags (issue 11; docs/decisions/live-updates.md): the lists, a
 * response and the stats answer 304 to `If-None-Match` while nothing changed in the workspace, and
 * a new tag as soon as a response arrives, a transcription finishes, an insight is corrected or a
 * response is erased; another workspace's changes do not disturb it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { nowIso } from "../../clock.ts";

let api: TestApi;
let link: any;

beforeAll(async () => {
  api = await createTestApi();
  link = (await api.call("POST", "/api/v1/links/", { body: { name: "Live", questions: [{ prompt: "Say something", type: "text" }] } })).json;
});
afterAll(() => api.close());

const intake = () => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;

async function respond(text: string): Promise<string> {
  const sid = (await api.call("POST", `${intake()}/sessions/`, { key: null, body: {} })).json.session_id;
  expect((await api.call("PUT", `${intake()}/sessions/${sid}/answers/${link.questions[0].uuid}/`, { key: null, body: { value: text } })).status).toBe(200);
  expect((await api.call("POST", `${intake()}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  return sid;
}

/** GETs `path` with `etag` (if any): the status and the tag answered. */
async function poll(path: string, etag?: string, key?: string) {
  const res = await api.call("GET", path, { headers: etag ? { "if-none-match": etag } : {}, ...(key ? { key } : {}) });
  return { status: res.status, etag: res.headers.get("etag"), body: res.text, cache: res.headers.get("cache-control"), res };
}

test("lists, a response and the stats answer 304 until something changes, then 200 with a new tag", async () => {
  await respond("first");
  const paths = [`/api/v1/links/${link.uuid}/responses/`, "/api/v1/responses/", `/api/v1/links/${link.uuid}/stats/`];
  const tags = new Map<string, string>();
  for (const p of paths) {
    const first = await poll(p);
    expect(first.status).toBe(200);
    expect(first.etag).toMatch(/^W\/"\d+\.\d+\.[0-9a-f]{16}"$/);
    expect(first.res.headers.get("vary")).toBe("Cookie, Authorization");
    expect(first.cache).toBe("private, no-cache");
    tags.set(p, first.etag!);
    const again = await poll(p, first.etag!);
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
    expect(again.etag).toBe(first.etag);
    expect(again.res.headers.get("vary")).toBe("Cookie, Authorization");
    expect(again.res.headers.get("ratelimit-limit")).not.toBeNull();
  }

  // A change in another workspace leaves these tags valid.
  const other = await api.newWorkspace("Other");
  expect((await api.call("POST", "/api/v1/links/", { key: other.api_key, body: { name: "Elsewhere" } })).status).toBe(201);
  for (const p of paths) expect((await poll(p, tags.get(p))).status).toBe(304);

  // A new response.
  await respond("second");
  for (const p of paths) {
    const fresh = await poll(p, tags.get(p));
    expect(fresh.status).toBe(200);
    expect(fresh.etag).not.toBe(tags.get(p));
    tags.set(p, fresh.etag!);
  }
  const list = JSON.parse((await poll(paths[0]!)).body);
  expect(list.count).toBe(2);

  // A transcription (or analysis) finishing updates an answer only.
  const one = `/api/v1/responses/${list.results[0].uuid}/`;
  const before = await poll(one);
  await api.db.updateTable("answers").set({ transcription: "done", date_updated: nowIso() }).where("uuid", "=", list.results[0].answers[0].uuid).execute();
  expect((await poll(one, before.etag!)).status).toBe(200);
  expect((await poll(paths[2]!, tags.get(paths[2]!))).status).toBe(200);

  // An erasure.
  const stats = await poll(paths[2]!);
  expect((await api.call("DELETE", `/api/v1/responses/${list.results[1].uuid}/`)).status).toBe(200);
  const after = await poll(paths[2]!, stats.etag!);
  expect(after.status).toBe(200);
  expect(JSON.parse(after.body).responses.completed).toBe(1);
});

test("If-None-Match: * and lists of tags follow RFC 9110; a stale tag gets the body", async () => {
  const p = `/api/v1/links/${link.uuid}/responses/`;
  const { etag } = await poll(p);
  expect((await poll(p, "*")).status).toBe(304);
  expect((await poll(p, `"nope", ${etag}`)).status).toBe(304);
  expect((await poll(p, etag!.replace("W/", ""))).status).toBe(304);
  expect((await poll(p, 'W/"0.0"')).status).toBe(200);
});

test("a 304 is only for the authenticated: no key still answers 401", async () => {
  const { etag } = await poll(`/api/v1/links/${link.uuid}/stats/`);
  const res = await api.call("GET", `/api/v1/links/${link.uuid}/stats/`, { key: null, headers: { "if-none-match": etag! } });
  expect(res.status).toBe(401);
});

test("a tag is the caller's own: another workspace or another key with the same change counter gets the body", async () => {
  // Two fresh workspaces with the same history have the same change counter.
  const [a, b] = [await api.newWorkspace("Twin A"), await api.newWorkspace("Twin B")];
  for (const key of [a.api_key, b.api_key])
    expect((await api.call("POST", "/api/v1/links/", { key, body: { name: "L", questions: [{ prompt: "Q", type: "text" }] } })).status).toBe(201);
  const p = "/api/v1/responses/?status=all";
  const ofA = await poll(p, undefined, a.api_key);
  const ofB = await poll(p, undefined, b.api_key);
  expect(ofA.etag).not.toBe(ofB.etag);
  expect((await poll(p, ofA.etag!, b.api_key)).status).toBe(200);
  expect((await poll(p, ofA.etag!, a.api_key)).status).toBe(304);
  // Another key of the same workspace: its own tag too (a shared cache keys on the caller).
  const created = await api.call("POST", "/api/v1/tokens/", { key: a.api_key, body: { name: "second", scopes: ["responses:read"] } });
  expect(created.status).toBe(201);
  const mine = await poll("/api/v1/responses/", undefined, a.api_key);
  const theirs = await poll("/api/v1/responses/", mine.etag!, created.json.key);
  expect(theirs.status).toBe(200);
  expect(theirs.etag).not.toBe(mine.etag);
});
