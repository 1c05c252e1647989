/**
 * @module test/helpers/https-receiver
 * A real HTTPS webhook receiver for tests (STYLE habit 7): `Bun.serve` with TLS, using a
 * certificate authority and a leaf certificate (for `localhost`, `127.0.0.1` and `::1`) that the
 * openssl CLI generates in the test run. It records every request and can be told to answer
 * with any status, slowly, or to go down (connection refused) and come back on the same port.
 * Point Earshot at `caFile` with `EARSHOT_WEBHOOK_CA_FILE`.
 */
import type { Server } from "bun";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** Files of a throw-away PKI: the CA certificate to trust, the leaf certificate and key to serve. */
export type TestCertificates = { dir: string; caFile: string; certFile: string; keyFile: string };

async function openssl(args: string[], cwd: string): Promise<void> {
  const proc = Bun.spawn(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`openssl ${args[0]} exited with ${code}: ${stderr.trim()}`);
}

/**
 * Generates a P-256 CA and a leaf certificate it signs, valid for two days, in a new temp folder.
 * @throws Error when the openssl CLI fails
 */
export async function createTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(path.join(tmpdir(), "earshot-pki-"));
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  await openssl(
    [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "2",
      "-subj",
      "/CN=Earshot Test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ],
    dir,
  );
  await openssl(["req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost"], dir);
  await writeFile(
    path.join(dir, "leaf.ext"),
    [
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
      "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
    ].join("\n"),
  );
  await openssl(
    ["x509", "-req", "-in", "leaf.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.crt", "-days", "2", "-extfile", "leaf.ext"],
    dir,
  );
  return { dir, caFile: path.join(dir, "ca.crt"), certFile: path.join(dir, "leaf.crt"), keyFile: path.join(dir, "leaf.key") };
}

/** One request as the receiver saw it. Header names are lower-case. */
export type ReceivedRequest = { method: string; path: string; headers: Record<string, string>; body: string; receivedAtMs: number };

/**
 * How to answer: status (default 200), a delay before answering, a body, extra headers;
 * `requireBearer`: answer 403 (as a protected ntfy topic does) unless the request carries
 * `Authorization: Bearer <requireBearer>`.
 */
export type Behavior = { status?: number; delayMs?: number; body?: string; headers?: Record<string, string>; requireBearer?: string };

export interface HttpsReceiver {
  /** `https://localhost:<port>/hook` (the certificate also covers 127.0.0.1 and ::1). */
  url: string;
  port: number;
  certs: TestCertificates;
  /** Every request received so far, in arrival order (recorded before answering). */
  requests: ReceivedRequest[];
  /** How every request (or every request to `path`) is answered from now on, unless a queued behavior applies. */
  setBehavior(b: Behavior, path?: string): void;
  /** Behaviors for the next requests (to `path`, or to any path), one each, before the default applies again. */
  queueBehaviors(b: Behavior[], path?: string): void;
  /** Stops listening: connections are refused until `up()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): void;
  /** Resolves once `pred(requests)` holds; rejects after `timeoutMs` with what arrived. */
  waitFor(pred: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops the server and deletes the certificates (when it made them). */
  close(): Promise<void>;
}

/**
 * Starts the receiver on 127.0.0.1.
 * @param opts.certs certificates to reuse (made fresh, and deleted on close, when omitted)
 */
export async function startHttpsReceiver(opts: { certs?: TestCertificates; port?: number } = {}): Promise<HttpsReceiver> {
  const certs = opts.certs ?? (await createTestCertificates());
  const requests: ReceivedRequest[] = [];
  const ANY = "*";
  const queued = new Map<string, Behavior[]>();
  const defaults = new Map<string, Behavior>();
  const next = (path: string): Behavior => queued.get(path)?.shift() ?? queued.get(ANY)?.shift() ?? defaults.get(path) ?? defaults.get(ANY) ?? {};
  let server: Server<undefined> | null = null;
  const tls = { cert: Bun.file(certs.certFile), key: Bun.file(certs.keyFile) };

  const listen = (port: number) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      tls,
      idleTimeout: 120,
      async fetch(req) {
        const url = new URL(req.url);
        const headers: Record<string, string> = {};
        req.headers.forEach((v, k) => (headers[k] = v));
        requests.push({ method: req.method, path: url.pathname + url.search, headers, body: await req.text(), receivedAtMs: Date.now() });
        const b = next(url.pathname);
        if (b.delayMs) await Bun.sleep(b.delayMs);
        if (b.requireBearer !== undefined && headers.authorization !== `Bearer ${b.requireBearer}`) return new Response("forbidden", { status: 403 });
        return new Response(b.body ?? "ok", { status: b.status ?? 200, headers: b.headers });
      },
    });

  server = listen(opts.port ?? 0);
  const port = server.port!;
  return {
    url: `https://localhost:${port}/hook`,
    port,
    certs,
    requests,
    setBehavior: (b, path = ANY) => void defaults.set(path, b),
    queueBehaviors: (b, path = ANY) => void queued.set(path, [...(queued.get(path) ?? []), ...b]),
    async down() {
      await server?.stop(true);
      server = null;
    },
    up() {
      if (!server) server = listen(port);
    },
    async waitFor(pred, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pred(requests)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms; got ${requests.length} requests`);
        await Bun.sleep(20);
      }
      return requests;
    },
    async close() {
      await server?.stop(true);
      server = null;
      if (!opts.certs) await rm(certs.dir, { recursive: true, force: true });
    },
  };
}
