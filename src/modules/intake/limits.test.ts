/**
 * Intake limits and housekeeping that need no socket (DESIGN §9; issue 9 item 5): uploads per
 * session (a per-minute rate and `EARSHOT_INTAKE_SESSION_UPLOAD_MB` of stored bytes), the session
 * start limiter's switch, the client address behind trusted proxies, and the purge of abandoned
 * sessions, orphaned blobs and `.tmp` files. Socket-level limits: test/integration/intake-limits.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { createLocalBlobStore } from "../../blobs/store.ts";
import { createLogger } from "../../logger.ts";
import { formatMicros } from "../../clock.ts";
import { AppError } from "../../errors.ts";
import { clientAddress, createIntakeLimiter, SESSION_UPLOADS_PER_MINUTE } from "./limits.ts";
import { purgeIntake } from "./purge.ts";

const KB = 1024;
let api: TestApi;
let link: any;
const base = () => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_INTAKE_SESSION_UPLOAD_MB: "1" });
  link = (
    await api.call("POST", "/api/v1/links/", {
      body: {
        name: "Uploads",
        questions: [
          { prompt: "Say it", type: "voice", configuration: { max_duration: 30 } },
          { prompt: "File A", type: "file_upload", configuration: { max_size_mb: 1 } },
          { prompt: "File B", type: "file_upload", configuration: { max_size_mb: 1 } },
          { prompt: "Briefly", type: "voice", configuration: { max_duration: 1 } },
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
function upload(sid: string, i: number, bytes: Uint8Array, name = "notes.txt") {
  const form = new FormData();
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  return api.call("POST", `${base()}/sessions/${sid}/answers/${link.questions[i].uuid}/file/`, { key: null, raw: form as never });
}
const text = (n: number) => new TextEncoder().encode("x".repeat(n));

describe("uploads per session", () => {
  test(`past ${SESSION_UPLOADS_PER_MINUTE} uploads of a session within a minute, the next gets 429 with Retry-After; other sessions are not affected`, async () => {
    const sid = await newSession();
    for (let i = 0; i < SESSION_UPLOADS_PER_MINUTE; i++) {
      const r = await api.call("POST", `${base()}/sessions/${sid}/answers/${link.questions[0].uuid}/audio/`, { key: null, raw: text(8), headers: { "content-type": "audio/wav" } });
      expect(r.status).toBe(415); // not audio, but counted
    }
    const refused = await api.call("POST", `${base()}/sessions/${sid}/answers/${link.questions[0].uuid}/audio/`, { key: null, raw: text(8), headers: { "content-type": "audio/wav" } });
    expect([refused.status, refused.json.code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await upload(await newSession(), 1, text(10))).status).toBe(200);
  });

  test("a session holds at most EARSHOT_INTAKE_SESSION_UPLOAD_MB of files and recordings; replacing an upload frees its share", async () => {
    const sid = await newSession();
    expect((await upload(sid, 1, text(700 * KB))).status).toBe(200);
    const over = await upload(sid, 2, text(700 * KB));
    expect([over.status, over.json.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(over.json.detail).toContain("session");
    expect((await upload(sid, 2, text(300 * KB))).status).toBe(200);
    expect((await upload(sid, 1, text(700 * KB))).status).toBe(200); // replaces the first 700 KiB
  });

  test("a recording above its question's duration-derived cap is refused 413 before it is stored", async () => {
    const sid = await newSession();
    // max_duration 1 s: (1 + 2) s × 192 000 B/s + 64 KiB = 641 536 bytes, below the session's 1 MiB.
    const r = await api.call("POST", `${base()}/sessions/${sid}/answers/${link.questions[3].uuid}/audio/`, { key: null, raw: text(700 * KB), headers: { "content-type": "audio/wav" } });
    expect([r.status, r.json.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(r.json.detail).toBe("Recordings for this question may be at most 641536 bytes.");
  });
});

describe("limiter and client address", () => {
  test("EARSHOT_INTAKE_SESSIONS_PER_MINUTE counts per address and link; 0 turns it off", () => {
    const limited = createIntakeLimiter({ intakeSessionsPerMinute: 2 });
    limited.takeSessionStart("10.0.0.1", "link-a");
    limited.takeSessionStart("10.0.0.1", "link-a");
    let err: unknown;
    try {
      limited.takeSessionStart("10.0.0.1", "link-a");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("RATE_LIMITED");
    expect(Number((err as AppError).headers?.["Retry-After"])).toBeGreaterThanOrEqual(1);
    limited.takeSessionStart("10.0.0.1", "link-b");
    limited.takeSessionStart("10.0.0.2", "link-a");
    const off = createIntakeLimiter({ intakeSessionsPerMinute: 0 });
    for (let i = 0; i < 1000; i++) off.takeSessionStart("10.0.0.1", "link-a");
  });

  test("the client address is the socket's, or X-Forwarded-For's right-most untrusted entry from a trusted proxy", () => {
    const req = (xff?: string) => new Request("http://x/", { headers: xff ? { "x-forwarded-for": xff } : {} });
    expect(clientAddress(req("1.2.3.4"), "203.0.113.9", [])).toBe("203.0.113.9");
    expect(clientAddress(req("1.2.3.4"), "::ffff:10.0.0.5", ["10.0.0.5"])).toBe("1.2.3.4");
    expect(clientAddress(req("6.6.6.6, 1.2.3.4, 10.0.0.6"), "10.0.0.5", ["10.0.0.5", "10.0.0.6"])).toBe("1.2.3.4");
    expect(clientAddress(req(), "10.0.0.5", ["10.0.0.5"])).toBe("10.0.0.5");
  });
});

describe("intake purge", () => {
  test("removes abandoned started sessions with their blobs, orphaned blobs and stale .tmp files — nothing recent or referenced", async () => {
    const blobs = createLocalBlobStore(api.config.blobsDir);
    const deps = { db: api.db, blobs, log: createLogger("silent"), blobsDir: api.config.blobsDir };
    const now = Date.now();
    const daysAgo = (d: number) => formatMicros(BigInt(now - d * 86_400_000) * 1000n);
    const fileOf = async (sid: string) => {
      const r = await api.db.selectFrom("responses").select("uuid").where("session_id", "=", sid).executeTakeFirstOrThrow();
      return (await api.db.selectFrom("answers").select("file_blob").where("response_uuid", "=", r.uuid).executeTakeFirstOrThrow()).file_blob!;
    };
    const age = async (sid: string, days: number) => {
      const r = await api.db.selectFrom("responses").select("uuid").where("session_id", "=", sid).executeTakeFirstOrThrow();
      await api.db.updateTable("responses").set({ date_updated: daysAgo(days), date_created: daysAgo(days) }).where("uuid", "=", r.uuid).execute();
      await api.db.updateTable("answers").set({ date_updated: daysAgo(days) }).where("response_uuid", "=", r.uuid).execute();
    };
    // An abandoned session (40 days), a recent one (10 days), and an old one that was submitted.
    const abandoned = await newSession();
    expect((await upload(abandoned, 1, text(100))).status).toBe(200);
    const recent = await newSession();
    expect((await upload(recent, 1, text(100))).status).toBe(200);
    const submitted = await newSession();
    expect((await upload(submitted, 1, text(100))).status).toBe(200);
    expect((await api.call("POST", `${base()}/sessions/${submitted}/submit/`, { key: null, body: {} })).status).toBe(200);
    const [abandonedBlob, recentBlob, submittedBlob] = [await fileOf(abandoned), await fileOf(recent), await fileOf(submitted)];
    await age(abandoned, 40);
    await age(recent, 10);
    await age(submitted, 40);
    // Orphans and .tmp files, old (2 h) and fresh.
    const old = new Date(now - 2 * 3600_000);
    const orphanOld = await blobs.put("audio", text(10));
    const orphanNew = await blobs.put("audio", text(10));
    fs.utimesSync(blobs.localPath(orphanOld)!, old, old);
    const tmpOld = path.join(api.config.blobsDir, "audio", `${crypto.randomUUID()}.tmp`);
    const tmpNew = path.join(api.config.blobsDir, "files", `${crypto.randomUUID()}.tmp`);
    fs.writeFileSync(tmpOld, "half a blob");
    fs.writeFileSync(tmpNew, "an upload in flight");
    fs.utimesSync(tmpOld, old, old);
    // Referenced blobs are never orphans, however old their files.
    for (const k of [recentBlob, submittedBlob]) fs.utimesSync(blobs.localPath(k)!, old, old);

    const report = await purgeIntake(deps, { retentionDays: 30, nowMs: now });
    expect(report).toEqual({ sessions: 1, blobs: 1, orphans: 1, tmp: 1 });
    const exists = (k: string) => fs.existsSync(blobs.localPath(k)!);
    expect([exists(abandonedBlob), exists(orphanOld), fs.existsSync(tmpOld)]).toEqual([false, false, false]);
    expect([exists(recentBlob), exists(submittedBlob), exists(orphanNew), fs.existsSync(tmpNew)]).toEqual([true, true, true, true]);
    const sessions = (await api.db.selectFrom("responses").select("session_id").execute()).map((r) => r.session_id);
    expect(sessions).not.toContain(abandoned);
    expect(sessions).toContain(recent);
    expect(sessions).toContain(submitted);
    expect((await api.call("GET", `${base()}/sessions/${abandoned}/`, { key: null })).status).toBe(404);
    // A second pass finds nothing more.
    expect(await purgeIntake(deps, { retentionDays: 30, nowMs: now })).toEqual({ sessions: 0, blobs: 0, orphans: 0, tmp: 0 });
  });
});
