/**
 * @module test/helpers/smtp-server
 * A real SMTP server for tests (the `smtp-server` package) on 127.0.0.1: plain SMTP offering
 * STARTTLS, or implicit TLS (smtps), with a certificate from a throw-away test CA
 * (test/helpers/https-receiver.ts), optional AUTH PLAIN/LOGIN with one user, and every message
 * parsed with `mailparser`. It can refuse messages (an SMTP 5xx/4xx answer) or go down and come
 * back on the same port.
 */
import { readFileSync } from "node:fs";
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";
import type { TestCertificates } from "./https-receiver.ts";

/** One message as the server received it: the envelope, whether it came over TLS, the raw bytes and the parsed mail. */
export type ReceivedMail = { from: string; to: string[]; secure: boolean; user: string | null; raw: string; parsed: ParsedMail };

export interface TestSmtpServer {
  port: number;
  received: ReceivedMail[];
  /** Answer every DATA with this SMTP error (e.g. 550) until set back to null. */
  refuseWith(code: number | null): void;
  /** Stops listening: connections are refused until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Resolves once `count` messages arrived; rejects after `timeoutMs`. */
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/**
 * Starts the server.
 * @param opts.secure implicit TLS (smtps) instead of plain SMTP with STARTTLS
 * @param opts.starttls offer STARTTLS on a plain server (default true)
 * @param opts.auth the one user and password accepted; without it no AUTH is asked
 */
export async function startSmtpServer(opts: {
  certs: TestCertificates;
  secure?: boolean;
  starttls?: boolean;
  auth?: { user: string; pass: string };
}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  let refuse: number | null = null;
  let port = 0;
  const make = () =>
    new SMTPServer({
      secure: !!opts.secure,
      key: readFileSync(opts.certs.keyFile),
      cert: readFileSync(opts.certs.certFile),
      disabledCommands: [...(opts.auth ? [] : ["AUTH"]), ...(opts.secure || opts.starttls !== false ? [] : ["STARTTLS"])],
      authOptional: !opts.auth,
      // AUTH only over TLS, as real servers insist; a client that skipped STARTTLS cannot log in.
      allowInsecureAuth: false,
      logger: false,
      onAuth(auth, _session, cb) {
        if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) cb(null, { user: auth.username });
        else cb(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", async () => {
          if (refuse !== null) return cb(Object.assign(new Error("Message refused by the test server"), { responseCode: refuse }));
          const raw = Buffer.concat(chunks).toString("utf8");
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            secure: session.secure,
            user: (session.user as string | undefined) ?? null,
            raw,
            parsed: await simpleParser(raw),
          });
          cb();
        });
      },
    });
  let server = make();
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        port = (server.server.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  return {
    get port() {
      return port;
    },
    received,
    refuseWith(code) {
      refuse = code;
    },
    async down() {
      await new Promise<void>((r) => server.close(() => r()));
    },
    async up() {
      server = make();
      await listen();
    },
    async waitForMessages(count, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} messages, received ${received.length}`);
        await Bun.sleep(50);
      }
      return received;
    },
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
