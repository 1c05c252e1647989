/**
 * @module links/kiosk.test
 * Kiosk mode's setting over real HTTP (issue 29; docs/api.md "Kiosk mode"): `settings.kiosk` is
 * validated (problem+json with a code and pointers), defaults, merges on PATCH, keeps the exit PIN
 * only as a hash (never returned, not even to the page or the database's settings in clear), the
 * intake API refuses to resume a kiosk link's session and checks the exit PIN with a rate limit.
 * Runs on both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { KIOSK_PIN_ATTEMPTS_PER_MINUTE } from "../intake/kiosk.ts";

let api: TestApi;
let origin: string;

beforeAll(async () => {
  api = await createTestApi({}, "enterprise");
  origin = api.listen().origin;
});
afterAll(() => api.close());

/** One request over a real socket; JSON answers are checked against the OpenAPI document. */
const http = (method: string, path: string, body?: unknown, key: string | null = api.ws.api_key) => api.listen().call(method, path, { body, key });

async function newLink(settings: Record<string, unknown> = {}) {
  const r = await http("POST", "/api/v1/links/", { name: "Booth", settings, questions: [{ prompt: "What did you think?", type: "text" }] });
  expect(r.status).toBe(201);
  return r.json;
}
const intake = (link: { slug: string }) => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
const storedSettings = async (uuid: string) =>
  (await sql<{ settings: string }>`select settings from links where uuid = ${uuid}`.execute(api.db)).rows[0]!.settings;

describe("settings.kiosk", () => {
  test("a link without it returns kiosk: null; one with it returns the defaults and has_exit_pin, never the PIN or its hash", async () => {
    expect((await newLink()).settings.kiosk).toBeNull();
    const link = await newLink({ kiosk: { enabled: true, exit_pin: "4711" } });
    expect(link.settings.kiosk).toEqual({ enabled: true, idle_timeout_s: 90, has_exit_pin: true });
    const all = JSON.stringify([link, (await http("GET", `/api/v1/links/${link.uuid}/`)).json, (await http("GET", `${intake(link)}/`, undefined, null)).json]);
    expect(all).not.toContain("4711");
    expect(all).not.toContain("argon2");
    expect(all).not.toContain("exit_pin_hash");
    // Stored as an argon2id hash, not in clear.
    const stored = await storedSettings(link.uuid);
    expect(stored).not.toContain("4711");
    expect(JSON.parse(stored).kiosk.exit_pin_hash).toStartWith("$argon2id$");
    // The intake page's embedded link carries the public form only.
    const page = await (await fetch(`${origin}/w/${api.ws.workspace_slug}/i/${link.slug}`)).text();
    expect(page).toContain('"has_exit_pin":true');
    expect(page).not.toContain("argon2");
  });

  test("invalid values are refused as problem+json VALIDATION_ERROR with pointers", async () => {
    const cases: [unknown, string][] = [
      [{ enabled: "yes" }, "/settings/kiosk/enabled"],
      [{ idle_timeout_s: 5 }, "/settings/kiosk/idle_timeout_s"],
      [{ idle_timeout_s: 3601 }, "/settings/kiosk/idle_timeout_s"],
      [{ idle_timeout_s: 30.5 }, "/settings/kiosk/idle_timeout_s"],
      [{ exit_pin: "12a4" }, "/settings/kiosk/exit_pin"],
      [{ exit_pin: "123" }, "/settings/kiosk/exit_pin"],
      [{ exit_pin: 1234 }, "/settings/kiosk/exit_pin"],
      [{ exit_pin_hash: "x" }, "/settings/kiosk/exit_pin_hash"],
      ["on", "/settings/kiosk"],
    ];
    for (const [kiosk, pointer] of cases) {
      const r = await http("POST", "/api/v1/links/", { name: "Bad kiosk", settings: { kiosk } });
      expect(r.status).toBe(400);
      expect(r.headers.get("content-type")).toStartWith("application/problem+json");
      expect(r.json.code).toBe("VALIDATION_ERROR");
      expect(r.json.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
  });

  test("kiosk mode is refused on an invitation-only link, on create and on PATCH", async () => {
    const r = await http("POST", "/api/v1/links/", { name: "Personal booth", settings: { access: "invitation", kiosk: { enabled: true } } });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("VALIDATION_ERROR");
    expect(r.json.errors[0].pointer).toBe("/settings/kiosk/enabled");
    const link = await newLink({ kiosk: { enabled: true } });
    const p = await http("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { access: "invitation" } });
    expect(p.status).toBe(400);
    expect(p.json.errors[0].pointer).toBe("/settings/kiosk/enabled");
  });

  test("PATCH merges: an omitted PIN is kept, a new one replaces it, null removes it; kiosk: null removes the setting", async () => {
    const link = await newLink({ kiosk: { enabled: true, idle_timeout_s: 30, exit_pin: "2468" } });
    const hash = JSON.parse(await storedSettings(link.uuid)).kiosk.exit_pin_hash;
    let p = await http("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { kiosk: { enabled: false } } });
    expect(p.status).toBe(200);
    expect(p.json.settings.kiosk).toEqual({ enabled: false, idle_timeout_s: 30, has_exit_pin: true });
    expect(JSON.parse(await storedSettings(link.uuid)).kiosk.exit_pin_hash).toBe(hash);
    // Another settings member alone leaves kiosk as it was.
    p = await http("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { description: "At the front desk" } });
    expect(p.json.settings.kiosk).toEqual({ enabled: false, idle_timeout_s: 30, has_exit_pin: true });
    p = await http("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { kiosk: { enabled: true, exit_pin: "13579" } } });
    expect(JSON.parse(await storedSettings(link.uuid)).kiosk.exit_pin_hash).not.toBe(hash);
    p = await http("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { kiosk: { enabled: true, exit_pin: null } } });
    expect(p.json.settings.kiosk).toEqual({ enabled: true, idle_timeout_s: 30, has_exit_pin: false });
    p = await http("PATCH", `/api/v1/links/${link.uuid}/`, { settings: { kiosk: null } });
    expect(p.json.settings.kiosk).toBeNull();
  });
});

describe("the intake API of a kiosk link", () => {
  test("a kiosk link's session is never handed out again (409 KIOSK_NO_RESUME); an ordinary link's still resumes", async () => {
    const kiosk = await newLink({ kiosk: { enabled: true } });
    const s = await http("POST", `${intake(kiosk)}/sessions/`, {}, null);
    expect(s.status).toBe(201);
    const put = await http("PUT", `${intake(kiosk)}/sessions/${s.json.session_id}/answers/${kiosk.questions[0].uuid}/`, { value: "private" }, null);
    expect(put.status).toBe(200);
    const again = await http("GET", `${intake(kiosk)}/sessions/${s.json.session_id}/`, undefined, null);
    expect(again.status).toBe(409);
    expect(again.headers.get("content-type")).toStartWith("application/problem+json");
    expect(again.json.code).toBe("KIOSK_NO_RESUME");
    expect(JSON.stringify(again.json)).not.toContain("private");
    // Kiosk mode switched off: the same session resumes as on any link.
    await http("PATCH", `/api/v1/links/${kiosk.uuid}/`, { settings: { kiosk: { enabled: false } } });
    expect((await http("GET", `${intake(kiosk)}/sessions/${s.json.session_id}/`, undefined, null)).status).toBe(200);
  });

  test("the exit PIN is checked against its hash, attempts are rate-limited, and a link without a PIN answers 404", async () => {
    const link = await newLink({ kiosk: { enabled: true, exit_pin: "8642" } });
    const exit = (body: unknown) => http("POST", `${intake(link)}/kiosk/exit/`, body, null);
    expect((await exit({ pin: "8642" })).json).toEqual({ exited: true });
    const wrong = await exit({ pin: "0000" });
    expect(wrong.status).toBe(403);
    expect(wrong.json.code).toBe("KIOSK_PIN_INVALID");
    const bad = await exit({ pin: "8642", extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("VALIDATION_ERROR");
    for (let i = 3; i <= KIOSK_PIN_ATTEMPTS_PER_MINUTE; i++) expect((await exit({ pin: "1111" })).status).toBe(403);
    // Past the limit even the right PIN waits.
    const limited = await exit({ pin: "8642" });
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const open = await newLink({ kiosk: { enabled: true } });
    const none = await http("POST", `${intake(open)}/kiosk/exit/`, { pin: "1234" }, null);
    expect(none.status).toBe(404);
    expect(none.json.code).toBe("NOT_FOUND");
  });
});
