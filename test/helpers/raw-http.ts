/**
 * @module test/helpers/raw-http
 * HTTP/1.1 over a plain TCP socket, for tests about what a server does with bodies it should not
 * read: stream a large body (declared or chunked) with backpressure, stop as soon as an answer
 * arrives, and report how much was sent by then. Also a bare WebSocket handshake that keeps the
 * socket open, and the resident memory of a process.
 */
import fs from "node:fs";
import net from "node:net";

export type RawReply = {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Body bytes the client had handed to the socket when the answer's head arrived. */
  sentBeforeReply: number;
};

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine, ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(":");
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(statusLine!.split(" ")[1]), headers };
}

/**
 * Sends `method path` with `headers` and a body of `total` bytes of `fill` in 64 KiB pieces
 * (`Transfer-Encoding: chunked` when `chunked`, else `Content-Length: declared ?? total`),
 * waiting for the socket to drain between pieces and pausing 20 ms after each MB (so a 100 MB body
 * takes seconds, and an early answer can be told from one after the whole body); stops sending
 * once an answer arrives.
 * @param prefix bytes sent first as part of the body (e.g. a multipart head)
 */
export function rawRequest(
  port: number,
  opts: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    total: number;
    chunked?: boolean;
    declared?: number;
    prefix?: Uint8Array;
    fill?: number;
  },
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, "127.0.0.1");
    let sent = 0;
    let sentAtReply = -1;
    let data = Buffer.alloc(0);
    let done = false;
    const finish = (r: RawReply | Error) => {
      if (done) return;
      done = true;
      sock.destroy();
      if (r instanceof Error) reject(r);
      else resolve(r);
    };
    const tryParse = () => {
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return;
      if (sentAtReply < 0) sentAtReply = sent;
      const { status, headers } = parseHead(data.subarray(0, end).toString("latin1"));
      const body = data.subarray(end + 4);
      const length = Number(headers["content-length"] ?? "0");
      if (body.length >= length) finish({ status, headers, body: body.subarray(0, length).toString("utf8"), sentBeforeReply: sentAtReply });
    };
    sock.on("data", (d) => {
      data = Buffer.concat([data, d as Buffer]);
      tryParse();
    });
    sock.on("error", (err) => {
      // The server may close while we are still sending: keep whatever answer arrived.
      tryParse();
      if (!done) finish(err);
    });
    sock.on("close", () => {
      tryParse();
      if (!done) finish(new Error(`connection closed after ${sent} body bytes without a complete answer: ${data.toString("latin1").slice(0, 300)}`));
    });
    sock.on("connect", async () => {
      const headers: Record<string, string> = { host: "127.0.0.1", ...opts.headers };
      if (opts.chunked) headers["transfer-encoding"] = "chunked";
      else headers["content-length"] = String(opts.declared ?? opts.total);
      sock.write(
        `${opts.method} ${opts.path} HTTP/1.1\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join("\r\n")}\r\n\r\n`,
      );
      const piece = Buffer.alloc(64 * 1024, opts.fill ?? 0x61);
      const write = (buf: Uint8Array) =>
        opts.chunked ? sock.write(Buffer.concat([Buffer.from(`${buf.length.toString(16)}\r\n`), buf, Buffer.from("\r\n")])) : sock.write(buf);
      if (opts.prefix) {
        write(opts.prefix);
        sent += opts.prefix.length;
      }
      while (!done && sent < opts.total) {
        const n = Math.min(piece.length, opts.total - sent);
        const flushed = write(n === piece.length ? piece : piece.subarray(0, n));
        sent += n;
        if (sent % (16 * piece.length) < piece.length) await Bun.sleep(20);
        if (!flushed)
          await new Promise<void>((r) => {
            sock.once("drain", r);
            sock.once("close", r);
          });
      }
      if (!done && opts.chunked) sock.write("0\r\n\r\n");
    });
  });
}

/**
 * A WebSocket handshake on a raw socket. On 101 the socket stays open (close it with `close()`);
 * otherwise the answer's status, headers and body are returned and the socket is closed.
 */
export function rawUpgrade(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string>; body: string; close(): void }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, "127.0.0.1", () => {
      const all = {
        host: "127.0.0.1",
        upgrade: "websocket",
        connection: "Upgrade",
        "sec-websocket-key": Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64"),
        "sec-websocket-version": "13",
        ...headers,
      };
      sock.write(
        `GET ${path} HTTP/1.1\r\n${Object.entries(all)
          .map(([k, v]) => `${k}: ${v}`)
          .join("\r\n")}\r\n\r\n`,
      );
    });
    let data = Buffer.alloc(0);
    let settled = false;
    sock.on("data", (d) => {
      data = Buffer.concat([data, d as Buffer]);
      const end = data.indexOf("\r\n\r\n");
      if (end < 0 || settled) return;
      const head = parseHead(data.subarray(0, end).toString("latin1"));
      const body = data.subarray(end + 4);
      if (head.status === 101) {
        settled = true;
        resolve({ ...head, body: "", close: () => sock.destroy() });
      } else if (body.length >= Number(head.headers["content-length"] ?? "0")) {
        settled = true;
        sock.destroy();
        resolve({ ...head, body: body.toString("utf8"), close: () => {} });
      }
    });
    sock.on("error", (err) => !settled && reject(err));
  });
}

/** Resident set size of a process, bytes (Linux `/proc`). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}
