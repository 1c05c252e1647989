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
import { onPostgres } from "../../../test/helpers/db.ts";
import { createLocalBlobStore } from "../../blobs/store.ts";
import { createLogger } from "../../logger.ts";
import { formatMicros } from "../../clock.ts";
import { AppError } from "../../errors.ts";
import { ADDRESS_UPLOAD_WINDOW_MS, clientAddress, createIntakeLimiter, SESSION_UPLOADS_PER_MINUTE } from "./limits.ts";
import { purgeIntake, purgeIntakeAtStart } from "./purge.ts";

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
      const r = await api.call("POST", `${base()}/sessions/${sid}/answers/${link.questions[0].uuid}/audio/`, {
        key: null,
        raw: text(8),
        headers: { "content-type": "audio/wav" },
      });
      expect(r.status).toBe(415); // not audio, but counted
    }
    const refused = await api.call("POST", `${base()}/sessions/${sid}/answers/${link.questions[0].uuid}/audio/`, {
      key: null,
      raw: text(8),
      headers: { "content-type": "audio/wav" },
    });
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

  test("parallel uploads of a session cannot together pass the allowance: each holds its share while in flight", async () => {
    const sid = await newSession();
    const replies = await Promise.all([upload(sid, 1, text(700 * KB)), upload(sid, 2, text(700 * KB))]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 413]);
    expect(replies.find((r) => r.status === 413)!.json.detail).toContain("session");
    const r = await api.db.selectFrom("responses").select("uuid").where("session_id", "=", sid).executeTakeFirstOrThrow();
    const blobs = api.deps.blobs; // files on SQLite, rows on PostgreSQL
    const stored = await api.db.selectFrom("answers").select("file_blob").where("response_uuid", "=", r.uuid).execute();
    let total = 0;
    for (const a of stored) if (a.file_blob) total += (await blobs.size(a.file_blob)) ?? 0;
    expect(total).toBeLessThanOrEqual(1024 * KB);
    // Once they are done, the hold is gone: the rest of the allowance is usable.
    expect((await upload(sid, 2, text(300 * KB))).status).toBe(200);
  });

  test("a recording above its question's duration-derived cap is refused 413 before it is stored", async () => {
    const sid = await newSession();
    // max_duration 1 s: (1 + 2) s × 192 000 B/s + 64 KiB = 641 536 bytes, below the session's 1 MiB.
    const r = await api.call("POST", `${base()}/sessions/${sid}/answers/${link.questions[3].uuid}/audio/`, {
      key: null,
      raw: text(700 * KB),
      headers: { "content-type": "audio/wav" },
    });
    expect([r.status, r.json.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(r.json.detail).toBe("Recordings for this question may be at most 641536 bytes.");
  });
});

describe("upload bytes per client address", () => {
  test("EARSHOT_INTAKE_ADDRESS_UPLOAD_MB_PER_HOUR bounds one address across sessions: 429 with Retry-After; other addresses are not affected", async () => {
    // "local" (the in-process peer) as a trusted proxy: X-Forwarded-For names the client.
    const budgeted = await createTestApi({ EARSHOT_INTAKE_ADDRESS_UPLOAD_MB_PER_HOUR: "1", EARSHOT_TRUSTED_PROXIES: "local" });
    try {
      const l = (
        await budgeted.call("POST", "/api/v1/links/", {
          body: { name: "Budget", questions: [{ prompt: "File", type: "file_upload", configuration: { max_size_mb: 1 } }] },
        })
      ).json;
      const b = `/api/v1/intake/${budgeted.ws.workspace_slug}/${l.slug}/sessions/`;
      const send = async (bytes: Uint8Array, headers: Record<string, string> = {}) => {
        const sid = (await budgeted.call("POST", b, { key: null, body: {} })).json.session_id;
        const form = new FormData();
        form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), "notes.txt");
        return budgeted.call("POST", `${b}${sid}/answers/${l.questions[0].uuid}/file/`, { key: null, raw: form as never, headers });
      };
      const from = (address: string) => ({ "x-forwarded-for": address });
      expect((await send(text(700 * KB), from("198.51.100.7"))).status).toBe(200);
      expect((await send(text(200 * KB), from("198.51.100.7"))).status).toBe(200); // a new session, the same address
      const refused = await send(text(700 * KB), from("198.51.100.7"));
      expect([refused.status, refused.json.code]).toEqual([429, "RATE_LIMITED"]);
      expect(refused.headers.get("content-type")).toContain("application/problem+json");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3000);
      // The refused body's bytes were received too: the hour is used up for that address only.
      expect((await send(text(10 * KB), from("198.51.100.7"))).status).toBe(429);
      expect((await send(text(700 * KB), from("203.0.113.5"))).status).toBe(200);
    } finally {
      await budgeted.close();
    }
  });

  test("the address budget holds bytes of uploads in flight, counts what was received, and renews each hour; 0 turns it off", () => {
    const limiter = createIntakeLimiter({ intakeSessionsPerMinute: 0, intakeAddressUploadBytesPerHour: 1000 });
    const t0 = 1_000_000;
    const a = limiter.holdUpload("s1", "10.0.0.1", 600, t0);
    expect(a.addressLeft).toBe(600);
    const b = limiter.holdUpload("s2", "10.0.0.1", 600, t0);
    expect(b.addressLeft).toBe(400); // a's 600 are held
    expect(limiter.holdUpload("s3", "10.0.0.2", 600, t0).addressLeft).toBe(600);
    a.received(100); // a sent only 100: the rest of its hold is free again
    a.release();
    b.release(); // b failed before its body was read: nothing counted
    const c = limiter.holdUpload("s4", "10.0.0.1", 2000, t0);
    expect(c.addressLeft).toBe(900);
    c.release();
    const used = limiter.holdUpload("s5", "10.0.0.1", 2000, t0);
    used.received(1000);
    used.release();
    let err: unknown;
    try {
      limiter.holdUpload("s6", "10.0.0.1", 10, t0 + 1000);
    } catch (e) {
      err = e;
    }
    expect((err as AppError).code).toBe("RATE_LIMITED");
    expect(Number((err as AppError).headers?.["Retry-After"])).toBe(ADDRESS_UPLOAD_WINDOW_MS / 1000 - 1);
    expect(limiter.holdUpload("s6", "10.0.0.1", 10, t0 + ADDRESS_UPLOAD_WINDOW_MS).addressLeft).toBe(10);
    const off = createIntakeLimiter({ intakeSessionsPerMinute: 0, intakeAddressUploadBytesPerHour: 0 });
    for (let i = 0; i < 100; i++) off.holdUpload("s", "10.0.0.1", 1e9, t0).received(1e9);
    expect(off.holdUpload("s", "10.0.0.1", 5, t0).addressLeft).toBe(Infinity);
  });

  test("a session's holds add up while its uploads are in flight and end on release", () => {
    const limiter = createIntakeLimiter({ intakeSessionsPerMinute: 0 });
    const first = limiter.holdUpload("s", "10.0.0.1", 700);
    expect(first.othersInFlight).toBe(0);
    first.shrink(500);
    const second = limiter.holdUpload("s", "10.0.0.1", 700);
    expect(second.othersInFlight).toBe(500);
    first.release();
    first.release(); // idempotent
    second.release();
    expect(limiter.holdUpload("s", "10.0.0.1", 700).othersInFlight).toBe(0);
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
  // SQLite-only: ages blob files with utimes and makes .tmp files; PostgreSQL keeps blobs as rows
  // (src/blobs/purge-postgres.test.ts is that engine's counterpart).
  test.skipIf(onPostgres)(
    "removes abandoned started sessions with their blobs, orphaned blobs and stale .tmp files — nothing recent or referenced (SQLite only: blob files on disk; PostgreSQL keeps blobs as rows, src/blobs/purge-postgres.test.ts)",
    async () => {
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
        await api.db
          .updateTable("responses")
          .set({ date_updated: daysAgo(days), date_created: daysAgo(days) })
          .where("uuid", "=", r.uuid)
          .execute();
        await api.db
          .updateTable("answers")
          .set({ date_updated: daysAgo(days) })
          .where("response_uuid", "=", r.uuid)
          .execute();
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
    },
  );

  test.skipIf(onPostgres)(
    "the start-up purge removes .tmp files from before the process started, never an upload's that began after (SQLite only: blob files on disk)",
    async () => {
      const deps = { db: api.db, blobs: createLocalBlobStore(api.config.blobsDir), log: createLogger("silent"), blobsDir: api.config.blobsDir };
      const startedAtMs = Date.now();
      const crashed = path.join(api.config.blobsDir, "audio", `${crypto.randomUUID()}.tmp`);
      fs.mkdirSync(path.dirname(crashed), { recursive: true });
      fs.writeFileSync(crashed, "half a blob from before a crash");
      const before = new Date(startedAtMs - 60_000);
      fs.utimesSync(crashed, before, before);
      // A respondent's first upload, begun as the server listened: its file is older than the
      // moment the purge runs, younger than the process.
      const inFlight = path.join(api.config.blobsDir, "audio", `${crypto.randomUUID()}.tmp`);
      fs.writeFileSync(inFlight, "the first bytes of an upload");
      await Bun.sleep(50);
      await purgeIntakeAtStart(deps, 30, startedAtMs);
      expect([fs.existsSync(crashed), fs.existsSync(inFlight)]).toEqual([false, true]);
      fs.rmSync(inFlight);
    },
  );
});
