/**
 * @module outbox/sender
 * One HTTP POST of a webhook delivery (DESIGN §8, Svix's habits): the URL guard runs first and the
 * request goes to an address it checked (the next one when a connection cannot be made); `redirect: "manual"` (a 3xx is a failure, never
 * followed); a timeout (10 s by default) over the whole exchange; at most 4 KiB of the response
 * body is read. TLS trusts the system roots plus `EARSHOT_WEBHOOK_CA_FILE` when set. Never throws:
 * every outcome becomes a {@link SendResult}.
 */
import type tls from "node:tls";
import type net from "node:net";
import { resolveDeliveryAddresses } from "./url-guard.ts";

/** Whole-exchange timeout of one attempt (DESIGN §8). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer is read and kept. */
export const RESPONSE_EXCERPT_BYTES = 4096;
const USER_AGENT = "Earshot-Webhooks/1";

export type SendResult = {
  /** HTTP status, or null when no response arrived. */
  statusCode: number | null;
  /** Up to 4 KiB of the response body (UTF-8, lossy). */
  excerpt: string | null;
  durationMs: number;
  /** Why no usable response arrived (refused address, DNS, TLS, timeout, connection). */
  error: string | null;
};

export type SendOptions = {
  allowHosts: readonly string[];
  /** Extra trusted CA certificates (PEM), added to the system roots; null for the roots only. */
  caPem: string | null;
  timeoutMs?: number;
  /** The HTTP method (default POST; Matrix alerts use PUT). */
  method?: "POST" | "PUT";
};

/** Reads at most `limit` bytes of a body, then cancels the rest. */
async function readExcerpt(res: Response, limit: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}

/** True when no connection could be made (so another address may be tried). */
function isConnectError(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? "";
  return ["ConnectionRefused", "ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "FailedToOpenSocket"].includes(code);
}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return `Timed out after ${timeoutMs} ms.`;
  const e = err as { code?: string; message?: string };
  const text = e?.message ?? String(err);
  return (e?.code && !text.includes(e.code) ? `${e.code}: ${text}` : text).slice(0, 500);
}

/** The trust store of the last `caPem` seen: the system roots and it, as one PEM bundle. */
let trust: { pem: string; ca: Buffer } | null = null;

/**
 * The `ca` option trusting the system roots plus `caPem` (Bun's `ca` replaces its roots, so they
 * are passed too), built once: one buffer, not an array of ~150 strings, which fetch re-read at
 * every request (~50–100 µs of CPU per delivery, bench/webhooks.ts).
 */
function trustedCa(caPem: string | null, rootCertificates: readonly string[]): Buffer | undefined {
  if (!caPem) return undefined;
  if (trust?.pem !== caPem) trust = { pem: caPem, ca: Buffer.from([...rootCertificates, caPem].join("\n")) };
  return trust.ca;
}

/**
 * Builds the fetch target: the URL with its host replaced by the checked address, while the
 * `Host` header, TLS SNI and certificate check still use the original name.
 */
function pinnedRequest(url: URL, address: string | null, caPem: string | null) {
  // node:tls loads at the first delivery (only its types are imported): not part of every start (bench/startup.ts).
  const { checkServerIdentity, rootCertificates }: typeof tls = require("node:tls");
  const { isIP, isIPv6 }: typeof net = require("node:net");
  const ca = trustedCa(caPem, rootCertificates);
  if (!address || isIP(url.hostname.replace(/^\[|\]$/g, ""))) return { target: url.toString(), host: null, tlsOptions: ca ? { ca } : undefined };
  const pinned = new URL(url);
  pinned.hostname = isIPv6(address) ? `[${address}]` : address;
  const name = url.hostname;
  return {
    target: pinned.toString(),
    host: url.host,
    tlsOptions: { ca, serverName: name, checkServerIdentity: (_h: string, cert: tls.PeerCertificate) => checkServerIdentity(name, cert) },
  };
}

/**
 * POSTs (or PUTs, `opts.method`) `body` with `headers` to `url`; a `content-type` in `headers`
 * replaces the default `application/json`.
 * @returns status, excerpt, duration in ms, or the error that prevented a response
 */
export async function sendWebhook(url: string, headers: Record<string, string>, body: string, opts: SendOptions): Promise<SendResult> {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const started = performance.now();
  const done = (r: Omit<SendResult, "durationMs">): SendResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  try {
    const parsed = new URL(url);
    const signal = AbortSignal.timeout(timeoutMs);
    const addresses = await Promise.race([
      resolveDeliveryAddresses(parsed, opts.allowHosts),
      new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
    ]);
    const candidates = addresses?.length ? addresses : [null];
    for (let i = 0; ; i++) {
      const req = pinnedRequest(parsed, candidates[i]!, opts.caPem);
      try {
        const res = await fetch(req.target, {
          method: opts.method ?? "POST",
          headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...(req.host ? { host: req.host } : {}), ...headers },
          body,
          redirect: "manual",
          signal,
          tls: req.tlsOptions,
        });
        const excerpt = await readExcerpt(res, RESPONSE_EXCERPT_BYTES);
        return done({ statusCode: res.status, excerpt, error: null });
      } catch (err) {
        if (i + 1 >= candidates.length || signal.aborted || !isConnectError(err)) throw err;
      }
    }
  } catch (err) {
    return done({ statusCode: null, excerpt: null, error: describeError(err, timeoutMs) });
  }
}
