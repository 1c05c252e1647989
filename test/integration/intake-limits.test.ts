/**
 * Body limits and intake limits over real sockets (issue 9 items 4–5; DESIGN §4, §9): `earshot
 * serve` as a real process, hostile bodies streamed from raw TCP sockets. A body is refused
 * before it is read — the answer arrives while the client is still sending, and the server's
 * resident memory does not grow by the body's size — and every refusal is problem+json.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";
import { onPostgres } from "../helpers/db.ts";
import { rawRequest, rawUpgrade, rssOf } from "../helpers/raw-http.ts";

const MB = 1_000_000;
const dataDir = mkdtempSync(path.join(tmpdir(), "earshot-limits-"));
let server: RunningServer;
let ws: { workspace_slug: string; api_key: string };
let link: any;
let base: string;
let xff = 0;
/** A half-written blob, as a crash mid-upload leaves it, there before the server starts. */
const leftoverTmp = path.join(dataDir, "blobs", "audio", `${crypto.randomUUID()}.tmp`);

/** A fresh client address behind the trusted proxy (127.0.0.1), so tests do not share buckets. */
const nextAddress = () => `10.0.${Math.floor(++xff / 250)}.${xff % 250}`;

async function call(method: string, urlPath: string, opts: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const res = await fetch(server.baseUrl + urlPath, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  return { status: res.status, headers: res.headers, json: (await res.json().catch(() => null)) as any };
}

async function newSession(address = nextAddress()): Promise<string> {
  const r = await call("POST", `${base}/sessions/`, { body: {}, headers: { "x-forwarded-for": address } });
  expect(r.status).toBe(201);
  return r.json.session_id;
}

beforeAll(async () => {
  const cli = await runCli(["workspace", "create", "--name", "Limits", "--slug", "limits", "--json"], { dataDir });
  expect(cli.code).toBe(0);
  ws = JSON.parse(cli.stdout);
  mkdirSync(path.dirname(leftoverTmp), { recursive: true });
  writeFileSync(leftoverTmp, new Uint8Array(256 * 1024));
  const crashedAt = new Date(Date.now() - 60_000); // a crash a minute before this start
  utimesSync(leftoverTmp, crashedAt, crashedAt);
  server = await startServer({ dataDir, env: { EARSHOT_TRUSTED_PROXIES: "127.0.0.1", EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "5", EARSHOT_JOBS_PAUSED: "1" } });
  const created = await call("POST", "/api/v1/links/", {
    key: ws.api_key,
    body: {
      name: "Limits",
      settings: { live_transcription: true },
      questions: [
        { prompt: "Tell us", type: "voice", configuration: { max_duration: 10 } },
        { prompt: "Comment", type: "text" },
        { prompt: "Attach", type: "file_upload", configuration: { max_size_mb: 1 } },
      ],
    },
  });
  expect(created.status).toBe(201);
  link = created.json;
  base = `/api/v1/intake/${ws.workspace_slug}/${link.slug}`;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const isProblem = (r: { headers: Record<string, string>; body: string }, status: number, code: string) => {
  expect(r.headers["content-type"]).toBe("application/problem+json");
  expect(JSON.parse(r.body)).toMatchObject({ status, code });
};

describe("request bodies are refused before they are read", () => {
  test("8 × 100 MB unauthenticated POSTs (declared and chunked) get 401 before the upload; the server's RSS does not grow by the body size", async () => {
    await rawRequest(server.port, { method: "POST", path: "/api/v1/links/", headers: { "content-type": "application/json" }, total: 10 });
    const before = rssOf(server.proc.pid);
    const kinds: Parameters<typeof rawRequest>[1][] = [
      { method: "POST", path: "/api/v1/links/", headers: { "content-type": "application/octet-stream" }, total: 100 * MB },
      { method: "POST", path: "/api/v1/links/", headers: { "content-type": "application/json" }, total: 100 * MB, chunked: true },
      { method: "PATCH", path: `/api/v1/links/${link.uuid}/`, headers: { "content-type": "text/plain" }, total: 100 * MB },
      {
        method: "POST",
        path: "/api/v1/links/",
        headers: { "content-type": "application/json", authorization: "Bearer sk_live_nope" },
        total: 100 * MB,
        chunked: true,
      },
    ];
    const replies = await Promise.all([...kinds, ...kinds].map((k) => rawRequest(server.port, k)));
    for (const r of replies) {
      expect(r.status).toBe(401);
      isProblem(r, 401, "UNAUTHENTICATED");
      // Answered while the client was still sending: the body was not read first.
      expect(r.sentBeforeReply).toBeLessThan(100 * MB);
    }
    // A route that does not exist never reads its body either.
    const unknown = await rawRequest(server.port, {
      method: "POST",
      path: "/api/v1/nothing-here/",
      headers: { "content-type": "application/json" },
      total: 100 * MB,
      chunked: true,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.sentBeforeReply).toBeLessThan(100 * MB);
    expect(rssOf(server.proc.pid) - before).toBeLessThan(80 * MB);
  }, 120_000);

  test("a 100 MB recording for a 10 s question is refused with 413 from its declared length, before reading", async () => {
    const sid = await newSession();
    const r = await rawRequest(server.port, {
      method: "POST",
      path: `${base}/sessions/${sid}/answers/${link.questions[0].uuid}/audio/`,
      headers: { "content-type": "audio/wav" },
      total: 100 * MB,
    });
    isProblem(r, 413, "PAYLOAD_TOO_LARGE");
    expect(r.sentBeforeReply).toBeLessThan(100 * MB);
  }, 60_000);

  test('3 MB of "€" in a JSON body (1 M characters, 3 M bytes) is refused with 413: the limit counts bytes', async () => {
    const sid = await newSession();
    const json = new TextEncoder().encode(JSON.stringify({ value: "€".repeat(1_000_000) }));
    expect(json.length).toBeGreaterThan(3 * MB);
    const r = await rawRequest(server.port, {
      method: "PUT",
      path: `${base}/sessions/${sid}/answers/${link.questions[1].uuid}/`,
      headers: { "content-type": "application/json" },
      total: json.length,
      prefix: json,
      chunked: true,
    });
    isProblem(r, 413, "PAYLOAD_TOO_LARGE");
  }, 60_000);

  test("a chunked upload over the question's file cap is cut off with 413 problem+json while the client is still sending", async () => {
    const sid = await newSession();
    const boundary = "----earshotlimits";
    const head = new TextEncoder().encode(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
    );
    const before = rssOf(server.proc.pid);
    const r = await rawRequest(server.port, {
      method: "POST",
      path: `${base}/sessions/${sid}/answers/${link.questions[2].uuid}/file/`,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      total: 60 * MB,
      prefix: head,
      chunked: true,
    });
    isProblem(r, 413, "PAYLOAD_TOO_LARGE");
    expect(r.sentBeforeReply).toBeLessThan(60 * MB);
    expect(rssOf(server.proc.pid) - before).toBeLessThan(30 * MB);
  }, 60_000);

  test("a body over the global limit (200 MB declared) gets a problem+json 413, not Bun's empty one", async () => {
    const r = await rawRequest(server.port, {
      method: "POST",
      path: `${base}/sessions/`,
      headers: { "content-type": "application/json" },
      total: 1 * MB,
      declared: 200 * 1024 * 1024,
    });
    expect(r.status).toBe(413);
    isProblem(r, 413, "PAYLOAD_TOO_LARGE");
  }, 60_000);
});

describe("anonymous intake limits", () => {
  // The local blob store's files; on PostgreSQL blobs are rows, and half-written ones are removed
  // by the hourly housekeeping (docs/operations.md "More than one machine").
  test.skipIf(onPostgres)(
    "serve removes the .tmp files a crash mid-upload left, at start (SQLite only: blob files on disk; PostgreSQL keeps blobs as rows)",
    async () => {
      for (let i = 0; i < 100 && existsSync(leftoverTmp); i++) await Bun.sleep(50);
      expect(existsSync(leftoverTmp)).toBe(false);
    },
  );

  test("session starts per client address and link: the 6th in a minute gets 429 with Retry-After; another address is not affected", async () => {
    const address = nextAddress();
    for (let i = 0; i < 5; i++) await newSession(address);
    const refused = await call("POST", `${base}/sessions/`, { body: {}, headers: { "x-forwarded-for": address } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.json.code).toBe("RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The address is the right-most one the trusted proxy (127.0.0.1) added.
    await newSession(`${address}, ${nextAddress()}`);
    await newSession(nextAddress());
  });

  test("live sockets: at most 2 per session and 20 per address; a closed socket frees its place", async () => {
    const live = (sid: string, address: string) => rawUpgrade(server.port, `${base}/sessions/${sid}/live/`, { "x-forwarded-for": address });
    const address = nextAddress();
    const sid = await newSession();
    const open = [await live(sid, address), await live(sid, address)];
    expect(open.map((s) => s.status)).toEqual([101, 101]);
    const third = await live(sid, address);
    expect(third.status).toBe(429);
    expect(third.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(third.body).code).toBe("RATE_LIMITED");
    expect(Number(third.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    open[0]!.close();
    let again = await live(sid, address);
    for (let i = 0; i < 50 && again.status !== 101; i++) {
      await Bun.sleep(50);
      again = await live(sid, address);
    }
    expect(again.status).toBe(101);
    open[0] = again;
    // 9 more sessions × 2 sockets from the same address make 20; the 21st is refused.
    for (let i = 0; i < 9; i++) {
      const s = await newSession();
      open.push(await live(s, address), await live(s, address));
    }
    expect(open.every((s) => s.status === 101)).toBe(true);
    expect(open.length).toBe(20);
    const other = await newSession();
    expect((await live(other, address)).status).toBe(429);
    const elsewhere = await live(other, nextAddress());
    expect(elsewhere.status).toBe(101);
    for (const s of [...open, elsewhere]) s.close();
  }, 60_000);
});
