/**
 * Revocation stops a streamed export over a real socket (DESIGN §5; issue 9 item 9). A real
 * `earshot serve` streams a large JSONL export to a slow raw-TCP reader; the reader's key is
 * revoked after the first bytes arrive, and the body must end well before the last response.
 * What the server wrote before the revocation (its batch in flight plus what the kernel's socket
 * buffers hold, a few MiB on loopback) may still arrive; nothing produced after it may.
 *
 * Issue 22 (Low): a reader that reads slowly after the revocation receives less than one chunk
 * more (the server notices while the socket is stalled and resets the connection, which drops what
 * the kernels still buffered), and the transfer ends in a reset, so the client can tell it failed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";
import { seedResponses } from "../helpers/seed-responses.ts";
import { openTestDatabase } from "../helpers/db.ts";

/** 400 responses × 8 typed answers of 10 000 characters (the `text` maximum): ~160 KB per JSONL line, ~64 MB in all. */
const RESPONSES = 400;
const QUESTIONS = 8;
const ANSWER_CHARS = 10_000;

let dataDir: string;
let server: RunningServer;
let ws: { workspace_uuid: string; workspace_slug: string; api_key: string };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-export-revoke-"));
  ws = JSON.parse((await runCli(["workspace", "create", "--name", "Export", "--json"], { dataDir })).stdout);
  server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1" } });
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const api = async (method: string, p: string, key: string, body?: unknown) => {
  const res = await fetch(`${server.baseUrl}/api/v1/${p}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
};

/**
 * GETs `urlPath` over a raw socket, reading slowly: after each chunk the socket is paused for
 * `pauseMs`, so the server's writes meet real backpressure. `onBytes` sees the running total;
 * when it returns a promise, reading waits for it.
 * @returns everything received (headers and chunked body) once the server ends or closes the socket
 */
function slowGet(urlPath: string, key: string, pauseMs: number, onBytes: (total: number) => Promise<unknown> | void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const sock = net.connect(server.port, "127.0.0.1", () => {
      sock.write(`GET ${urlPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    });
    sock.on("data", (d: Buffer) => {
      chunks.push(d);
      total += d.length;
      sock.pause();
      void Promise.resolve(onBytes(total)).then(() => setTimeout(() => sock.resume(), pauseMs));
    });
    const done = () => resolve(Buffer.concat(chunks));
    sock.on("end", done);
    sock.on("close", done);
    sock.on("error", (err) => (chunks.length ? done() : reject(err)));
  });
}

/**
 * The kernel's queues of the loopback TCP connections to `port` (/proc/net/tcp and tcp6, no
 * tools needed): bytes the server's sockets hold unsent or unacknowledged, and bytes the clients'
 * sockets hold received but unread.
 */
function queuesOf(port: number): { serverUnsent: number; clientUnread: number } {
  let serverUnsent = 0;
  let clientUnread = 0;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of fs.readFileSync(file, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 5 || f[3] === "0A") continue; // LISTEN
      const [tx, rx] = f[4]!.split(":").map((h) => Number.parseInt(h, 16));
      if (Number.parseInt(f[1]!.split(":")[1]!, 16) === port) serverUnsent += tx!;
      if (Number.parseInt(f[2]!.split(":")[1]!, 16) === port) clientUnread += rx!;
    }
  }
  return { serverUnsent, clientUnread };
}

test("a slow reader's export is reset soon after the revocation: the server drops what it still buffered, the client sees a reset", async () => {
  // ~2 KB JSONL lines (the report's were ~1.5 KB): 4,000 rows, ~9 MB, more than the kernels buffer.
  const created = await api("POST", "links/", ws.api_key, { name: "Short answers", questions: [{ prompt: "Comment", type: "text" }] });
  expect(created.status).toBe(201);
  const link = created.json;
  const db = await openTestDatabase(dataDir);
  await seedResponses(db, ws.workspace_uuid, link, 4_000, (i) => `answer ${i} `.padEnd(1_500, "y"));
  await db.destroy();
  const reader = (await api("POST", "tokens/", ws.api_key, { name: "Slow exporter", scopes: ["responses:read"] })).json;
  // Unrevoked, the same export arrives whole (every line, a clean end).
  const whole = await fetch(`${server.baseUrl}/api/v1/links/${link.uuid}/responses/export/?format=jsonl`, {
    headers: { authorization: `Bearer ${reader.key}` },
  });
  expect(whole.status).toBe(200);
  expect((await whole.text()).trimEnd().split("\n").length).toBe(4_000);

  let atRevocation = -1;
  let queued: { serverUnsent: number; clientUnread: number } | null = null;
  let endedBy = "end";
  let revocation: Promise<void> = Promise.resolve();
  const received = await new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const sock = net.connect(server.port, "127.0.0.1", () => {
      sock.write(
        `GET /api/v1/links/${link.uuid}/responses/export/?format=jsonl HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${reader.key}\r\nConnection: close\r\n\r\n`,
      );
    });
    sock.on("data", async (d: Buffer) => {
      chunks.push(d);
      total += d.length;
      sock.pause(); // a slow reader: one read every 20 ms
      if (atRevocation < 0 && total >= 64 * 1024) {
        atRevocation = total;
        revocation = (async () => {
          // Reading stops while the key is revoked; the kernels' buffers fill meanwhile (MiBs).
          await Bun.sleep(500);
          expect((await api("DELETE", `tokens/${reader.uuid}/`, ws.api_key)).status).toBe(200);
          // Well past the server's stalled-reader check (25 ms), then what the kernels still hold.
          await Bun.sleep(1000);
          queued = queuesOf(server.port);
        })();
        await revocation;
      }
      setTimeout(() => sock.resume(), 20);
    });
    sock.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ECONNRESET") endedBy = "reset";
    });
    sock.on("close", () => void revocation.then(() => resolve(Buffer.concat(chunks))));
  });
  expect(atRevocation).toBeGreaterThan(0);
  expect(queued).not.toBeNull();
  // The server reset the connection: nothing of the export is left in its socket (before the
  // fix, ~4 MB sat there, to be delivered to the reader after the revocation).
  expect(queued!.serverUnsent).toBe(0);
  const text = received.toString("utf8");
  expect(text.startsWith("HTTP/1.1 200")).toBe(true);
  // After the revocation the reader gets at most what its own kernel had already received.
  expect(received.length - atRevocation).toBeLessThanOrEqual(queued!.clientUnread);
  // The client can tell: the transfer ends in a reset, never with the final chunk.
  expect(endedBy).toBe("reset");
  expect(text.endsWith("\r\n0\r\n\r\n")).toBe(false);
}, 120_000);

test("revoking the key stops a streamed export over a real socket at its next batch", async () => {
  const questions = Array.from({ length: QUESTIONS }, (_, i) => ({ prompt: `Tell us everything, part ${i + 1}`, type: "text" }));
  const created = await api("POST", "links/", ws.api_key, { name: "Long answers", questions });
  expect(created.status).toBe(201);
  const link = created.json;
  // Seeded into the server's database directly (SQLite's WAL or PostgreSQL: the running server sees the rows).
  const db = await openTestDatabase(dataDir);
  await seedResponses(db, ws.workspace_uuid, link, RESPONSES, (i) => `answer ${i} `.padEnd(ANSWER_CHARS, "x"));
  await db.destroy();
  const reader = (await api("POST", "tokens/", ws.api_key, { name: "Exporter", scopes: ["responses:read"] })).json;

  // After the first 256 KiB the reader stops reading until the revocation has committed.
  let revoked: Promise<number> | null = null;
  const received = await slowGet(`/api/v1/links/${link.uuid}/responses/export/?format=jsonl`, reader.key, 20, (total) => {
    if (!revoked && total >= 256 * 1024) {
      revoked = api("DELETE", `tokens/${reader.uuid}/`, ws.api_key).then((r) => r.status);
      return revoked;
    }
  });
  expect(revoked).not.toBeNull();
  expect(await revoked!).toBe(200);

  const text = received.toString("latin1");
  expect(text.startsWith("HTTP/1.1 200")).toBe(true);
  const rows = text.split(`"link_uuid":"${link.uuid}"`).length - 1;
  // The export is ~64 MB. What was produced before the revocation (one 64 Ki-character chunk
  // plus what the sockets' kernel buffers held, a few MiB) may arrive; a whole 200-row batch
  // (~32 MB) or the rest of the export must not.
  expect(received.length).toBeLessThan(16 * 1024 * 1024);
  expect(rows).toBeLessThan(100);
  expect(rows).toBeGreaterThan(0);
  // The body is cut off, not completed: no last chunk of the chunked encoding.
  expect(text.endsWith("\r\n0\r\n\r\n")).toBe(false);
}, 120_000);
