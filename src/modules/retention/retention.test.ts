/**
 * Retention (issue 25, DESIGN §13; docs/privacy.md "Retention") on a manual clock, both engines:
 * responses past the age are erased as `DELETE responses/{uuid}/` erases them (answers, search
 * index, outbox payloads, blobs) and nothing else (younger ones, started sessions, a link whose
 * override turns the rule off); recordings are dropped only once transcribed, the transcript kept
 * and the audio URL gone (404); a response is erased once every webhook still subscribed received
 * it (a real HTTPS receiver); a dry run counts what the run then deletes; each run is audited.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import { createManualClock } from "../../clock.ts";
import { createLogger } from "../../logger.ts";
import { createDispatcher, type Dispatcher } from "../../outbox/dispatcher.ts";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { startHttpsReceiver, type HttpsReceiver } from "../../../test/helpers/https-receiver.ts";
import { createProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { WEBM_FIXTURE_PATH } from "../../../test/helpers/fixtures.ts";
import { LEASE_KEY, runRetention } from "./service.ts";
import { clearLease, leaseUntil, setLease } from "./repository.ts";
import { createToken } from "../tokens/service.ts";
import { KEY_SCOPES } from "../../auth/keys.ts";

const DAY_MS = 86_400_000;
const clock = createManualClock();
let api: TestApi;
let receiver: HttpsReceiver;
let dispatcher: Dispatcher;
let processing: Awaited<ReturnType<typeof createProcessing>>;
/** A key with the admin scopes (`workspace:write`, `audit:read`), as `earshot token create` mints for an operator. */
let owner: string;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  api = await createTestApi(
    {
      EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost",
      EARSHOT_WEBHOOK_CA_FILE: receiver.certs.caFile,
      EARSHOT_WEBHOOK_RETRY_SCHEDULE_S: "3,3,3",
      EARSHOT_OUTBOX_POLL_MS: "50",
    },
    "enterprise",
    { clock },
  );
  dispatcher = createDispatcher({ db: api.db, log: createLogger("silent"), config: api.config, timeoutMs: 5000 });
  await dispatcher.start();
  owner = (await createToken(api.db, api.ws.workspace_uuid, { name: "owner", scopes: KEY_SCOPES })).key;
  processing = await createProcessing(api); // started by the recordings test, after its untranscribed case
});

afterAll(async () => {
  await processing.stop();
  await dispatcher.stop();
  await receiver.close();
  await api.close();
});

const run = () => runRetention({ db: api.db, blobs: api.deps.blobs, clock });

async function createLink(name: string, questions: unknown[], retention?: unknown) {
  const r = await api.call("POST", "/api/v1/links/", { body: { name, questions, ...(retention ? { settings: { retention } } : {}) } });
  expect(r.status).toBe(201);
  return r.json as { uuid: string; slug: string; questions: { uuid: string }[]; settings: any };
}

/** Starts a session on `link`, gives `answers` (question index → text or "webm"), submits unless told not to. */
async function respond(link: { slug: string; questions: { uuid: string }[] }, answers: Record<number, string>, submit = true) {
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}/sessions/`;
  const s = await api.call("POST", base, { body: {}, key: null });
  expect(s.status).toBe(201);
  for (const [i, v] of Object.entries(answers)) {
    const q = link.questions[Number(i)]!.uuid;
    const r =
      v === "webm"
        ? await api.call("POST", `${base}${s.json.session_id}/answers/${q}/audio/`, {
            key: null,
            raw: new Uint8Array(fs.readFileSync(WEBM_FIXTURE_PATH)),
            headers: { "content-type": "audio/webm" },
          })
        : await api.call("PUT", `${base}${s.json.session_id}/answers/${q}/`, { body: { value: v }, key: null });
    expect(r.status).toBe(200);
  }
  if (submit) expect((await api.call("POST", `${base}${s.json.session_id}/submit/`, { body: {}, key: null })).status).toBe(200);
  return s.json.response_uuid as string;
}

const getResponse = (uuid: string) => api.call("GET", `/api/v1/responses/${uuid}/`);
const blobKeysOf = async (responseUuid: string) =>
  (await api.db.selectFrom("answers").select("audio_blob").where("response_uuid", "=", responseUuid).execute())
    .map((a) => a.audio_blob)
    .filter((k) => k !== null);

describe("input", () => {
  test("retention settings are validated; a link created without them behaves as before", async () => {
    const bad = await api.call("PATCH", "/api/v1/workspace/", { body: { retention: { delete_responses_after_days: 0 } }, key: owner });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].pointer).toBe("/retention/delete_responses_after_days");
    const unknown = await api.call("POST", "/api/v1/links/", { body: { name: "x", settings: { retention: { keep_forever: true } } } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.code).toBe("VALIDATION_ERROR");
    const plain = await createLink("plain", []);
    expect(plain.settings.retention).toBeUndefined(); // the link's shape is as before
    const withOverride = await createLink("override", [], { delete_after_delivery: true });
    expect(withOverride.settings.retention).toEqual({ delete_after_delivery: true });
    const cleared = await api.call("PATCH", `/api/v1/links/${withOverride.uuid}/`, { body: { settings: { retention: null } } });
    expect(cleared.json.settings.retention).toBeUndefined();
    const ws = await api.call("GET", "/api/v1/workspace/");
    expect(ws.json.retention).toEqual({
      delete_responses_after_days: null,
      delete_audio_after_days: null,
      delete_audio_after_transcription: false,
      delete_after_delivery: false,
    });
    const missing = await api.call("POST", `/api/v1/links/${crypto.randomUUID()}/retention/preview/`, { body: {} });
    expect(missing.status).toBe(404);
  });
});

describe("by age", () => {
  test("erases submitted responses past the age with the erasure of DELETE, and nothing else; the dry run counted it; audited", async () => {
    const link = await createLink("age", [
      { prompt: "What went wrong?", type: "text" },
      { prompt: "Say it", type: "voice", required: false },
    ]);
    // A receiver of response.started, so the outbox holds a payload of the response to erase.
    const hooks = `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`;
    expect((await api.call("POST", hooks, { body: { url: receiver.url.replace("/hook", "/started"), events: ["response.started"] } })).status).toBe(201);
    const kept = await createLink("kept", [{ prompt: "Anything?", type: "text" }], { delete_responses_after_days: null });
    const old = await respond(link, { 0: "Zorblatquux broke the checkout", 1: "webm" });
    const keptOld = await respond(kept, { 0: "Old but kept" });
    const started = await respond(link, { 0: "Never submitted" }, false);
    await Bun.sleep(5);
    const young = await respond(link, { 0: "Young answer" });
    const oldAt = (await getResponse(old)).json.submitted_at as string;
    const youngAt = (await getResponse(young)).json.submitted_at as string;
    const oldKeys = await blobKeysOf(old);
    expect(oldKeys.length).toBe(1);
    // 30 days after a moment between the two submissions: `old` is past the age, `young` is not.
    clock.set(Math.floor((Date.parse(oldAt) + Date.parse(youngAt)) / 2) + 30 * DAY_MS);

    const policy = { delete_responses_after_days: 30 };
    const dry = await api.call("POST", "/api/v1/workspace/retention/preview/", { body: { retention: policy }, key: owner });
    expect(dry.status).toBe(200);
    expect(dry.json.counts).toEqual({ responses: 1, recordings: 0 });
    expect((await run())?.size ?? 0).toBe(0); // not saved yet: nothing deleted
    expect((await getResponse(old)).status).toBe(200);
    expect((await api.call("PATCH", "/api/v1/workspace/", { body: { retention: policy }, key: owner })).json.retention.delete_responses_after_days).toBe(30);

    // Another node holds the run lease: this node skips the run.
    await setLease(api.db, LEASE_KEY, clock.isoAfter(60));
    expect(await run()).toBeNull();
    expect((await getResponse(old)).status).toBe(200);
    await clearLease(api.db, LEASE_KEY, (await leaseUntil(api.db, LEASE_KEY))!);
    // Two nodes at once: whichever runs erases it, nothing is erased twice.
    const both = await Promise.all([run(), run()]);
    const erased = both.map((r) => r?.get(api.ws.workspace_uuid)).filter((c) => c !== undefined);
    expect(erased).toEqual([dry.json.counts]);

    expect((await getResponse(old)).status).toBe(404);
    for (const uuid of [young, keptOld]) expect((await getResponse(uuid)).status).toBe(200);
    expect(await api.db.selectFrom("responses").select("status").where("uuid", "=", started).executeTakeFirst()).toEqual({ status: "started" });
    // The same erasure as DELETE responses/{uuid}/: answers, search index, outbox payloads, blobs.
    expect(await api.db.selectFrom("answers").select("uuid").where("response_uuid", "=", old).execute()).toEqual([]);
    expect((await api.call("GET", "/api/v1/responses/?search=Zorblatquux")).json.count).toBe(0);
    const events = await api.db.selectFrom("outbox_events").select(["payload", "erased_at"]).where("response_uuid", "=", old).execute();
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.erased_at).not.toBeNull();
      expect(e.payload).not.toContain("Zorblatquux");
    }
    for (const k of oldKeys) expect(await api.deps.blobs.head(k!, 4)).toBeNull();

    const audit = await api.call("GET", "/api/v1/audit/?action=retention.applied", { key: owner });
    expect(audit.json.results.length).toBe(1);
    expect(audit.json.results[0].actor).toMatchObject({ type: "system", name: "retention" });
    expect(audit.json.results[0].target.label).toContain("erased 1 responses");
    expect(audit.json.results[0].target.label).toContain('"delete_responses_after_days":30');
    // A second run finds nothing and writes no entry.
    expect((await run())!.size).toBe(0);
    expect((await api.call("GET", "/api/v1/audit/?action=retention.applied", { key: owner })).json.results.length).toBe(1);
    expect((await api.call("PATCH", "/api/v1/workspace/", { body: { retention: null }, key: owner })).status).toBe(200);
  }, 60_000);
});

describe("recordings", () => {
  test("dropped once transcribed (never before), the transcript kept, the audio URL gone", async () => {
    const link = await createLink("audio", [{ prompt: "Say it", type: "voice" }], { delete_audio_after_transcription: true });
    const uuid = await respond(link, { 0: "webm" });
    const [key] = await blobKeysOf(uuid);
    // Not transcribed yet (the runner is not started): the recording stays.
    expect((await run())!.size).toBe(0);
    const before = (await getResponse(uuid)).json.answers[0];
    expect(before.transcription_status).not.toBe("completed");
    expect(before.audio_url).toContain("sig=");

    await processing.runner.start();
    const done = await waitFor(async () => {
      const a = (await getResponse(uuid)).json.answers[0];
      return a.transcription_status === "completed" && a;
    });
    const dry = await api.call("POST", `/api/v1/links/${link.uuid}/retention/preview/`, { body: {} });
    expect(dry.json).toMatchObject({ policy: { delete_audio_after_transcription: true }, counts: { responses: 0, recordings: 1 } });
    expect((await run())!.get(api.ws.workspace_uuid)).toEqual(dry.json.counts);

    const after = (await getResponse(uuid)).json.answers[0];
    expect(after.audio_url).toBeNull();
    expect(after.audio_deleted_at).toMatch(/Z$/);
    expect(after.transcription).toBe(done.transcription);
    expect(after.transcription_status).toBe("completed");
    expect((await api.call("GET", new URL(done.audio_url).pathname + new URL(done.audio_url).search)).status).toBe(404);
    expect(await api.deps.blobs.head(key!, 4)).toBeNull();
  }, 90_000);
});

describe("after delivery", () => {
  test("a response is erased once every webhook still subscribed received it", async () => {
    const wsPath = `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`;
    const hook = async (path: string) =>
      (await api.call("POST", wsPath, { body: { url: receiver.url.replace("/hook", path), events: ["response.submitted"] } })).json.uuid as string;
    const ok = await hook("/ok");
    const failing = await hook("/failing");
    receiver.setBehavior({ status: 503 }, "/failing");
    const link = await createLink("delivered", [{ prompt: "Anything?", type: "text" }], { delete_after_delivery: true });
    const other = await createLink("not-this-one", [{ prompt: "Anything?", type: "text" }]);
    const uuid = await respond(link, { 0: "Delivered answer" });
    const otherUuid = await respond(other, { 0: "Delivered elsewhere" });
    const states = async (hookUuid: string) => (await api.call("GET", `${wsPath}${hookUuid}/deliveries/`)).json.results.map((d: any) => d.state);
    await waitFor(async () => (await states(ok)).filter((s: string) => s === "succeeded").length === 2, 60_000, "deliveries to /ok");
    await waitFor(
      async () => {
        const ds = (await api.call("GET", `${wsPath}${failing}/deliveries/`)).json.results;
        return ds.length === 2 && ds.every((d: any) => d.attempts >= 1 && d.state === "pending");
      },
      60_000,
      "attempts to /failing",
    );

    // One receiver still waits for a retry: nothing goes.
    const dry = () => api.call("POST", `/api/v1/links/${link.uuid}/retention/preview/`, { body: {} });
    expect((await dry()).json.counts).toEqual({ responses: 0, recordings: 0 });
    expect((await run())!.size).toBe(0);
    expect((await getResponse(uuid)).status).toBe(200);

    // The failing webhook is removed: every webhook still subscribed received it.
    expect((await api.call("DELETE", `${wsPath}${failing}/`)).status).toBe(200);
    expect((await dry()).json.counts).toEqual({ responses: 1, recordings: 0 });
    expect((await run())!.get(api.ws.workspace_uuid)).toEqual({ responses: 1, recordings: 0 });
    expect((await getResponse(uuid)).status).toBe(404);
    expect((await getResponse(otherUuid)).status).toBe(200); // its link has no such rule
  }, 90_000);
});

describe("recordings by age", () => {
  test("dropped the given number of days after submission, not before", async () => {
    const link = await createLink("audio-age", [{ prompt: "Say it", type: "voice" }], { delete_audio_after_days: 7 });
    const uuid = await respond(link, { 0: "webm" });
    const submittedMs = Date.parse((await getResponse(uuid)).json.submitted_at);
    const dry = async () => (await api.call("POST", `/api/v1/links/${link.uuid}/retention/preview/`, { body: {} })).json.counts;
    clock.set(submittedMs + 6 * DAY_MS);
    expect(await dry()).toEqual({ responses: 0, recordings: 0 });
    expect((await run())!.size).toBe(0);
    expect((await getResponse(uuid)).json.answers[0].audio_url).toContain("sig=");
    clock.set(submittedMs + 8 * DAY_MS);
    expect(await dry()).toEqual({ responses: 0, recordings: 1 });
    expect((await run())!.get(api.ws.workspace_uuid)).toEqual({ responses: 0, recordings: 1 });
    const a = (await getResponse(uuid)).json.answers[0];
    expect(a.audio_url).toBeNull();
    expect(a.audio_deleted_at).not.toBeNull();
  }, 60_000);
});
