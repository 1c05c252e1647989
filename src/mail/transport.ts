/**
 * @module mail/transport
 * Sends one message over SMTP with nodemailer (DESIGN §15): From is `EARSHOT_MAIL_FROM`, and
 * every message carries its own Message-ID, a Date and `Auto-Submitted: auto-generated` (RFC 3834,
 * so auto-responders stay quiet). `smtp://` upgrades with STARTTLS when the server offers it
 * (`?starttls=required` makes it mandatory); `smtps://` is TLS from the start. The server's
 * certificate is checked against the system's CAs plus `EARSHOT_SMTP_CA_FILE`. A failure is
 * thrown as {@link MailError} whose message never holds the credentials. Knows no feature.
 */
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { rootCertificates } from "node:tls";
import nodemailer from "nodemailer";
import { parseSmtpUrl } from "./settings.ts";
import type { ComposedMessage } from "./messages.ts";

/** How long one SMTP step may take (connect, greeting, each command), ms. */
export const SMTP_TIMEOUT_MS = 15_000;

/** What the transport needs from the configuration. */
export type MailConfig = { smtpUrl: string; mailFrom: string; smtpCaFile: string | null };

/** A failed send: `message` is safe to show to the operator (no password, no URL credentials). */
export class MailError extends Error {
  override name = "MailError";
  /** The SMTP reply code when the server answered (e.g. 535, 550), else null. */
  constructor(
    message: string,
    readonly responseCode: number | null,
  ) {
    super(message);
  }
}

export interface Mailer {
  /**
   * Sends `message` to `to`.
   * @returns the Message-ID used (`<uuid@domain-of-From>`)
   * @throws MailError when the server refuses, cannot be reached, or TLS or the login fails
   */
  send(to: string, message: ComposedMessage): Promise<{ messageId: string }>;
  /** Closes idle connections (none are kept: one connection per message). */
  close(): void;
}

/** The domain of the From address (for Message-IDs). */
function fromDomain(from: string): string {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  return address.split("@").pop()!.trim() || "earshot.invalid";
}

/** An error's text with the URL's password and user removed, whatever nodemailer put in it. */
function safeMessage(err: unknown, secrets: string[]): string {
  let text = err instanceof Error ? err.message : String(err);
  for (const s of secrets) if (s) text = text.split(s).join("***");
  return text.replace(/\s+/g, " ").trim().slice(0, 500);
}

/**
 * Builds a mailer from the configuration.
 * @throws Error when `smtpUrl` does not parse or `smtpCaFile` cannot be read (config checks both at start)
 */
export function createMailer(config: MailConfig, opts: { timeoutMs?: number } = {}): Mailer {
  const s = parseSmtpUrl(config.smtpUrl);
  const ca = config.smtpCaFile ? [...rootCertificates, readFileSync(config.smtpCaFile, "utf8")] : undefined;
  const timeout = opts.timeoutMs ?? SMTP_TIMEOUT_MS;
  const transport = nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.secure,
    requireTLS: s.requireTls,
    auth: s.auth ?? undefined,
    tls: { ca, servername: s.host, minVersion: "TLSv1.2" },
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    // The message is ours; nothing in it may make nodemailer read a file or fetch a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const secrets = s.auth ? [s.auth.pass, encodeURIComponent(s.auth.pass), config.smtpUrl] : [config.smtpUrl];
  const domain = fromDomain(config.mailFrom);
  return {
    async send(to, message) {
      const messageId = `<${randomUUID()}@${domain}>`;
      try {
        await transport.sendMail({
          from: config.mailFrom,
          to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId,
          date: new Date(),
          headers: { "Auto-Submitted": "auto-generated", "Content-Language": message.lang },
        });
      } catch (err) {
        const code = (err as { responseCode?: unknown }).responseCode;
        throw new MailError(safeMessage(err, secrets), typeof code === "number" ? code : null);
      }
      return { messageId };
    },
    close() {
      transport.close();
    },
  };
}
