/**
 * Personal, single-use invitations (issue 25; DESIGN §13; docs/api.md "Invitations"), over real
 * HTTP on a real socket, on both engines: minting (one, bulk with hidden values, expiry) and every
 * refusal of its body, listing with states, revoking, scopes, audit entries, the intake API's
 * invitation errors, resuming by invitation, single use, two tabs starting at once, and the
 * intake page's "already used" / expired / revoked / required pages (localised).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type ApiReply, type TestApi } from "../../../test/helpers/api.ts";

let api: TestApi;
let origin: string;
/** A request over the socket; `key` defaults to the workspace's key, null sends none. */
let call: TestApi["call"];

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" });
  ({ origin, call } = api.listen());
});
afterAll(() => api.close());

async function newLink(settings: Record<string, unknown> = {}) {
  const r = await call("POST", "/api/v1/links/", {
    body: {
      name: `Invited ${crypto.randomUUID()}`,
      settings,
      questions: [{ prompt: "How was your visit?", type: "text", required: true, field_key: "visit" }],
    },
  });
  expect(r.status).toBe(201);
  return r.json;
}
const inv = (link: any) => `/api/v1/links/${link.uuid}/invitations/`;
const intake = (link: any) => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
const tokenOf = (url: string) => new URL(url).searchParams.get("inv")!;
const start = (link: any, invitation?: string) =>
  call("POST", `${intake(link)}/sessions/`, { key: null, body: invitation === undefined ? {} : { invitation } });

async function answerAndSubmit(link: any, sessionId: string): Promise<ApiReply> {
  const q = link.questions[0].uuid;
  expect((await call("PUT", `${intake(link)}/sessions/${sessionId}/answers/${q}/`, { key: null, body: { value: "Lovely staff" } })).status).toBe(200);
  return call("POST", `${intake(link)}/sessions/${sessionId}/submit/`, { key: null, body: {} });
}
async function mint(link: any, body: unknown = {}) {
  const r = await call("POST", inv(link), { body });
  expect(r.status).toBe(201);
  return r.json.results as any[];
}
const stateOf = async (link: any, uuid: string) => (await call("GET", `${inv(link)}?page_size=100`)).json.results.find((i: any) => i.uuid === uuid).state;

describe("minting", () => {
  test("a link created as the specification shows is open: settings.access is open, sessions start without an invitation", async () => {
    const link = await newLink();
    expect(link.settings.access).toBe("open");
    expect((await start(link)).status).toBe(201);
  });

  test("one invitation by default: a signed personal URL on the link's public_url, unused, no hidden values, no expiry", async () => {
    const link = await newLink();
    const [one, ...rest] = await mint(link);
    expect(rest).toEqual([]);
    expect(one).toMatchObject({ link_uuid: link.uuid, state: "unused", hidden: {}, expires_at: null, response_uuid: null, started_at: null });
    expect(one.url).toMatch(new RegExp(`^${link.public_url.replace(/[.?]/g, "\\$&")}\\?inv=${one.uuid}\\.[A-Za-z0-9_-]{43}$`));
  });

  test("bulk: count with one hidden object each, returned and listed in order; hidden alone sets the count", async () => {
    const link = await newLink();
    const hidden = [{ order_id: "A-1" }, { order_id: "A-2", store: "north" }, {}];
    const made = await mint(link, { count: 3, hidden, expires_at: "2999-01-01T00:00:00Z" });
    expect(made.map((i) => i.hidden)).toEqual(hidden);
    expect(made.every((i) => i.expires_at === "2999-01-01T00:00:00.000000Z")).toBe(true);
    expect(new Set(made.map((i) => i.url)).size).toBe(3);
    const listed = await call("GET", inv(link));
    expect(listed.json.count).toBe(3);
    expect(listed.json.results.map((i: any) => i.uuid)).toEqual(made.map((i) => i.uuid));
    expect(listed.json.results.map((i: any) => i.url)).toEqual(made.map((i) => i.url));
    expect((await mint(link, { hidden: [{ a: "1" }, { a: "2" }] })).length).toBe(2);
  });

  test("1000 in one request; the list pages through them", async () => {
    const link = await newLink();
    const r = await call("POST", inv(link), { body: { count: 1000 } });
    expect(r.status).toBe(201);
    expect(r.json.count).toBe(1000);
    const page = await call("GET", `${inv(link)}?page=10&page_size=100`);
    expect(page.json.count).toBe(1000);
    expect(page.json.results.length).toBe(100);
    expect(page.json.next).toBeNull();
  });

  const refused: [string, unknown, string][] = [
    ["count above 1000", { count: 1001 }, "/count"],
    ["count 0", { count: 0 }, "/count"],
    ["count not an integer", { count: 1.5 }, "/count"],
    ["hidden not matching count", { count: 2, hidden: [{ a: "1" }] }, "/hidden"],
    ["hidden empty", { hidden: [] }, "/hidden"],
    ["a hidden name that is not a field key", { hidden: [{ "Order-Id": "1" }] }, "/hidden/0/Order-Id"],
    ["a hidden value that is not a string", { hidden: [{ order_id: 5 }] }, "/hidden/0/order_id"],
    ["a hidden value over 500 characters", { hidden: [{ order_id: "x".repeat(501) }] }, "/hidden/0/order_id"],
    ["more than 20 hidden values", { hidden: [Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"]))] }, "/hidden/0"],
    ["expires_at not a timestamp", { expires_at: "tomorrow" }, "/expires_at"],
    ["expires_at in the past", { expires_at: "2020-01-01T00:00:00Z" }, "/expires_at"],
    ["an unknown member", { uses: 2 }, "/uses"],
  ];
  for (const [what, body, pointer] of refused) {
    test(`refused with VALIDATION_ERROR: ${what}`, async () => {
      const link = await newLink();
      const r = await call("POST", inv(link), { body });
      expect(r.status).toBe(400);
      expect(r.json.code).toBe("VALIDATION_ERROR");
      expect(r.json.errors.map((e: any) => e.pointer)).toContain(pointer);
      expect((await call("GET", inv(link))).json.count).toBe(0);
    });
  }

  test("a body that is not JSON is INVALID_JSON; an unknown, malformed or foreign link is NOT_FOUND", async () => {
    const link = await newLink();
    const bad = await fetch(origin + inv(link), {
      method: "POST",
      headers: { authorization: `Bearer ${api.ws.api_key}`, "content-type": "application/json" },
      body: "{",
    });
    expect(((await bad.json()) as any).code).toBe("INVALID_JSON");
    expect((await call("POST", `/api/v1/links/${crypto.randomUUID()}/invitations/`, { body: {} })).json.code).toBe("NOT_FOUND");
    expect((await call("GET", "/api/v1/links/not-a-uuid/invitations/")).json.code).toBe("NOT_FOUND");
    const other = await api.newWorkspace("Other");
    expect((await call("POST", inv(link), { key: other.api_key, body: {} })).status).toBe(404);
    expect((await call("GET", inv(link), { key: other.api_key })).status).toBe(404);
  });

  test("scopes: links:write mints and revokes, links:read lists", async () => {
    const link = await newLink();
    const [one] = await mint(link);
    const reader = (await call("POST", "/api/v1/tokens/", { body: { name: "reader", scopes: ["links:read"] } })).json.key;
    expect((await call("GET", inv(link), { key: reader })).status).toBe(200);
    const post = await call("POST", inv(link), { key: reader, body: {} });
    expect([post.status, post.json.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    expect((await call("DELETE", `${inv(link)}${one.uuid}/`, { key: reader })).json.code).toBe("INSUFFICIENT_SCOPE");
    expect((await call("GET", inv(link), { key: null })).status).toBe(401);
  });

  test("minting and revoking are audited", async () => {
    const link = await newLink();
    const [one] = await mint(link, { count: 2 });
    await call("DELETE", `${inv(link)}${one.uuid}/`);
    const rows = await api.db.selectFrom("audit_log").select(["action", "target_uuid", "target_label"]).where("action", "like", "invitation%").execute();
    expect(rows).toContainEqual({ action: "invitations.created", target_uuid: link.uuid, target_label: "2 invitations" });
    expect(rows).toContainEqual({ action: "invitation.revoked", target_uuid: one.uuid, target_label: null });
  });
});

describe("the intake API with invitations", () => {
  test('access "invitation": none, a forged one or another link\'s is INVITATION_REQUIRED; a valid one starts, resumes, submits once', async () => {
    const link = await newLink({ access: "invitation" });
    expect(link.settings.access).toBe("invitation");
    const other = await newLink({ access: "invitation" });
    const [mine] = await mint(link, { hidden: [{ order_id: "42" }] });
    const [theirs] = await mint(other);
    const token = tokenOf(mine.url);
    for (const bad of [undefined, "", `${mine.uuid}.${"A".repeat(43)}`, tokenOf(theirs.url), `${token}x`, 42, "x".repeat(5000)]) {
      const r = await start(link, bad as string);
      expect([r.status, r.json.code]).toEqual([403, "INVITATION_REQUIRED"]);
    }
    const first = await start(link, token);
    expect(first.status).toBe(201);
    expect(await stateOf(link, mine.uuid)).toBe("started");
    const listed = (await call("GET", `${inv(link)}?state=started`)).json.results[0];
    expect(listed.response_uuid).toBe(first.json.response_uuid);
    const again = await start(link, token);
    expect(again.status).toBe(200);
    expect(again.json.session_id).toBe(first.json.session_id);
    expect((await answerAndSubmit(link, first.json.session_id)).status).toBe(200);
    expect(await stateOf(link, mine.uuid)).toBe("submitted");
    const reuse = await start(link, token);
    expect([reuse.status, reuse.json.code]).toEqual([409, "INVITATION_USED"]);
    const responses = await call("GET", `/api/v1/links/${link.uuid}/responses/?status=all`);
    expect(responses.json.count).toBe(1);
  });

  test("an open link takes invitations too, and each is still good for one submitted response", async () => {
    const link = await newLink();
    const [one] = await mint(link);
    const s = await start(link, tokenOf(one.url));
    expect(s.status).toBe(201);
    expect((await answerAndSubmit(link, s.json.session_id)).status).toBe(200);
    expect((await start(link, tokenOf(one.url))).json.code).toBe("INVITATION_USED");
    expect((await start(link, `${one.uuid}.forged`)).json.code).toBe("INVITATION_REQUIRED");
    expect((await start(link)).status).toBe(201);
  });

  test("expired: an unused invitation past expires_at is INVITATION_EXPIRED; one started before can still be submitted", async () => {
    const link = await newLink({ access: "invitation" });
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const [early, late] = await mint(link, { count: 2, expires_at: expiresAt });
    const s = await start(link, tokenOf(early.url));
    expect(s.status).toBe(201);
    await Bun.sleep(Date.parse(expiresAt) - Date.now() + 50);
    expect(await stateOf(link, late.uuid)).toBe("expired");
    expect((await call("GET", `${inv(link)}?state=expired`)).json.results.map((i: any) => i.uuid)).toEqual([late.uuid]);
    const r = await start(link, tokenOf(late.url));
    expect([r.status, r.json.code]).toEqual([403, "INVITATION_EXPIRED"]);
    expect((await start(link, tokenOf(early.url))).json.session_id).toBe(s.json.session_id);
    expect((await answerAndSubmit(link, s.json.session_id)).status).toBe(200);
  });

  test("revoked: it cannot start, and a response it started cannot be submitted; revoking is idempotent, unknown ones are NOT_FOUND", async () => {
    const link = await newLink({ access: "invitation" });
    const [unused, started] = await mint(link, { count: 2 });
    const s = await start(link, tokenOf(started.url));
    for (const i of [unused, started]) {
      const r = await call("DELETE", `${inv(link)}${i.uuid}/`);
      expect([r.status, r.json]).toEqual([200, { message: "Invitation revoked." }]);
    }
    expect((await call("DELETE", `${inv(link)}${unused.uuid}/`)).status).toBe(200);
    expect(await stateOf(link, unused.uuid)).toBe("revoked");
    expect((await call("GET", `${inv(link)}?state=revoked`)).json.count).toBe(2);
    const r = await start(link, tokenOf(unused.url));
    expect([r.status, r.json.code]).toEqual([403, "INVITATION_REVOKED"]);
    const submit = await answerAndSubmit(link, s.json.session_id);
    expect([submit.status, submit.json.code]).toEqual([403, "INVITATION_REVOKED"]);
    expect((await call("DELETE", `${inv(link)}${crypto.randomUUID()}/`)).json.code).toBe("NOT_FOUND");
    expect((await call("DELETE", `${inv(link)}nope/`)).json.code).toBe("NOT_FOUND");
  });

  test("two tabs starting at once with one invitation get one response", async () => {
    const link = await newLink({ access: "invitation" });
    const [one] = await mint(link);
    const token = tokenOf(one.url);
    const starts = await Promise.all(Array.from({ length: 6 }, () => start(link, token)));
    expect(starts.map((s) => s.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(starts.map((s) => s.json.session_id)).size).toBe(1);
    expect((await call("GET", `/api/v1/links/${link.uuid}/responses/?status=all`)).json.count).toBe(1);
  });

  test("deleting the link deletes its invitations (hidden values included); its responses stay", async () => {
    const link = await newLink();
    const [one] = await mint(link, { hidden: [{ email: "ann@example.com" }] });
    const s = await start(link, tokenOf(one.url));
    expect((await call("DELETE", `/api/v1/links/${link.uuid}/`)).status).toBe(200);
    expect(await api.db.selectFrom("invitations").select("uuid").where("link_uuid", "=", link.uuid).execute()).toEqual([]);
    expect((await call("GET", `/api/v1/responses/${s.json.response_uuid}/`)).status).toBe(200);
  });

  test("the list filters by state and refuses an unknown one", async () => {
    const link = await newLink();
    await mint(link, { count: 2 });
    expect((await call("GET", `${inv(link)}?state=unused`)).json.count).toBe(2);
    expect((await call("GET", `${inv(link)}?state=submitted`)).json.count).toBe(0);
    expect((await call("GET", `${inv(link)}?state=used`)).json.code).toBe("VALIDATION_ERROR");
  });
});

describe("the intake page", () => {
  const pageOf = (link: any, token: string | null, lang = "en") =>
    fetch(`${origin}/w/${api.ws.workspace_slug}/i/${link.slug}${token === null ? "" : `?inv=${encodeURIComponent(token)}`}`, {
      headers: { "accept-language": lang },
    });

  test("used, expired, revoked and missing invitations get their own localised page; a valid one gets the form", async () => {
    const link = await newLink({ access: "invitation" });
    const [used, revoked, fresh] = await mint(link, { count: 3 });
    const s = await start(link, tokenOf(used.url));
    await answerAndSubmit(link, s.json.session_id);
    await call("DELETE", `${inv(link)}${revoked.uuid}/`);
    const usedPage = await pageOf(link, tokenOf(used.url));
    expect(usedPage.status).toBe(409);
    expect(await usedPage.text()).toContain("This personal link was already used to send a response.");
    expect(await (await pageOf(link, tokenOf(used.url), "de")).text()).toContain("Mit diesem persönlichen Link wurde bereits eine Antwort gesendet.");
    const revokedPage = await pageOf(link, tokenOf(revoked.url));
    expect([revokedPage.status, (await revokedPage.text()).includes("This personal link is no longer valid.")]).toEqual([403, true]);
    const missing = await pageOf(link, null, "fr");
    expect([missing.status, (await missing.text()).includes("Ce formulaire est accessible sur invitation personnelle.")]).toEqual([403, true]);
    const ok = await pageOf(link, tokenOf(fresh.url));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("earshot-link");
  });

  test("an expired invitation's page says so", async () => {
    const link = await newLink({ access: "invitation" });
    const [one] = await mint(link, { expires_at: new Date(Date.now() + 800).toISOString() });
    await Bun.sleep(900);
    const r = await pageOf(link, tokenOf(one.url));
    expect([r.status, (await r.text()).includes("This personal link has expired.")]).toEqual([403, true]);
  });
});
