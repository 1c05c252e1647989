/**
 * @module intake/limits
 * Bounds on the anonymous intake (DESIGN §9; docs/intake.md "Limits"): session starts per client
 * address and link, uploads per session (a rate, and `EARSHOT_INTAKE_SESSION_UPLOAD_MB` of stored bytes), the byte caps of one
 * recording or file, and live sockets per session and per address. Counters live in memory: one
 * process serves the appliance, and a restart forgiving a minute's count is acceptable.
 *
 * Upload bytes (security review finding 15): an upload in flight holds its most possible bytes of
 * its session's allowance, so parallel uploads cannot together pass it; and each client address
 * may send `EARSHOT_INTAKE_ADDRESS_UPLOAD_MB_PER_HOUR` of upload bodies an hour (however many
 * sessions it starts), which bounds how fast one source can fill the disk.
 */
import type { Kysely } from "kysely";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/schema.ts";
import type { BlobStore } from "../../blobs/store.ts";
import { AppError } from "../../errors.ts";
import { createRateLimiter } from "../../auth/rate-limit.ts";
import * as responsesRepo from "../responses/repository.ts";
import type { StoredFollowUp } from "./probing.ts";
import { forwardedClientAddress } from "../../http/client-address.ts";
import { intakeLimitRefusals } from "../../metrics/instruments.ts";

/** Byte rate of the largest recording format accepted: 48 kHz, 16-bit, stereo PCM. */
export const AUDIO_BYTES_PER_SECOND = 192_000;
/** No recording may exceed this, whatever its question's `max_duration`. */
export const MAX_AUDIO_BYTES = 64 * 1024 * 1024;
/** Room for container headers (WAV, WebM) on top of the duration-derived cap. */
const AUDIO_HEADER_ALLOWANCE = 64 * 1024;
/** Room for the multipart envelope around a file. */
export const MULTIPART_ALLOWANCE = 64 * 1024;
/** Uploads (recordings, files, follow-up recordings) one session may send per minute. */
export const SESSION_UPLOADS_PER_MINUTE = 30;
/** Probes one session may ask per minute that transcribe or analyse (`POST …/probe/`). */
export const SESSION_PROBES_PER_MINUTE = 10;
/** Open live-transcription sockets per session and per client address. */
export const LIVE_SOCKETS_PER_SESSION = 2;
export const LIVE_SOCKETS_PER_ADDRESS = 20;

/**
 * Largest accepted recording for a question: `(max_duration + 2 s)` at {@link AUDIO_BYTES_PER_SECOND}
 * plus header room, never above {@link MAX_AUDIO_BYTES}.
 * @param configuration the question's configuration (`max_duration` in seconds, default 120)
 * @returns bytes
 */
export function audioCapBytes(configuration: Record<string, unknown>): number {
  const seconds = Number(configuration.max_duration ?? 120);
  return Math.min(MAX_AUDIO_BYTES, (seconds + 2) * AUDIO_BYTES_PER_SECOND + AUDIO_HEADER_ALLOWANCE);
}

/** Largest accepted file for a question: `max_size_mb` (default 10) MiB, in bytes. */
export function fileCapBytes(configuration: Record<string, unknown>): number {
  return Number(configuration.max_size_mb ?? 10) * 1024 * 1024;
}

/**
 * The respondent's address: the socket's peer, or — when the peer is a proxy listed in
 * `EARSHOT_TRUSTED_PROXIES` — the right-most `X-Forwarded-For` entry that is not itself a trusted
 * proxy (one rule with sign-in throttling: http/client-address).
 * @param peer the socket's address (null inside `app.handle` tests: "local")
 */
export function clientAddress(request: Request, peer: string | null, trustedProxies: readonly string[]): string {
  return forwardedClientAddress(request, peer ?? "local", trustedProxies)!;
}

/** The 429 of a respondent limit, counted under `limit` (earshot_intake_limit_refusals_total). */
function rateLimited(limit: string, detail: string, headers: Record<string, string>): AppError {
  intakeLimitRefusals.labels(limit).inc();
  return new AppError("RATE_LIMITED", detail, { headers: { "Retry-After": headers["Retry-After"] ?? "60" } });
}

export interface IntakeLimiter {
  /**
   * Counts a session start for (address, link).
   * @throws AppError RATE_LIMITED with Retry-After when `EARSHOT_INTAKE_SESSIONS_PER_MINUTE` is used up
   */
  takeSessionStart(address: string, linkUuid: string): void;
  /**
   * Counts an upload for a session.
   * @throws AppError RATE_LIMITED with Retry-After past {@link SESSION_UPLOADS_PER_MINUTE}
   */
  takeUpload(sessionId: string): void;
  /**
   * Counts a probe that transcribes or analyses, for a session.
   * @throws AppError RATE_LIMITED with Retry-After past {@link SESSION_PROBES_PER_MINUTE}
   */
  takeProbe(sessionId: string): void;
  /**
   * Begins an upload: holds `cap` bytes of the session's allowance (lower it with `shrink` once
   * the session's stored bytes are known) until `release`, and checks the address's hourly budget.
   * Call `holdUpload` and read `othersInFlight` before reading the session's stored bytes, and
   * `release` only after the upload is stored: then two uploads never both miss each other.
   * @param cap the most bytes the upload could send (its question's cap), in bytes
   * @throws AppError RATE_LIMITED with Retry-After when the address has sent its hour's budget
   */
  holdUpload(sessionId: string, address: string, cap: number, nowMs?: number): UploadHold;
  /**
   * Checks that one more live socket may open (before the upgrade).
   * @throws AppError RATE_LIMITED with Retry-After when the session or the address is at its limit
   */
  checkLive(sessionId: string, address: string): void;
  /** Counts an opened live socket; returns its release function, or null when over a limit (close it). */
  openLive(sessionId: string, address: string): (() => void) | null;
}

/** An upload's hold on its session's allowance and its address's hourly budget (see {@link IntakeLimiter.holdUpload}). */
export interface UploadHold {
  /** Bytes held for the session by the session's other uploads in flight when this one began. */
  readonly othersInFlight: number;
  /** Bytes this upload may send by the address's hourly budget (≤ cap, ≥ 1, held until `received`); Infinity without a budget. */
  readonly addressLeft: number;
  /** Seconds until the address's hourly window ends (for `Retry-After`). */
  readonly retryAfterS: number;
  /** Lowers the session hold to `bytes` (the most this upload may send, once known). */
  shrink(bytes: number): void;
  /** The body was read (or refused after `bytes`): they count against the address's hour. Once. */
  received(bytes: number): void;
  /** The upload is stored or failed: its session hold ends. Idempotent. */
  release(): void;
}

/**
 * The 429 for an address past `EARSHOT_INTAKE_ADDRESS_UPLOAD_MB_PER_HOUR`.
 * @param retryAfterS seconds until its hourly window ends
 */
export function addressUploadBudgetSpent(retryAfterS: number): AppError {
  intakeLimitRefusals.labels("address_upload_budget").inc();
  return new AppError("RATE_LIMITED", "This address has sent its hour's share of uploads; retry after the time in Retry-After.", {
    headers: { "Retry-After": String(retryAfterS) },
  });
}

/** The hourly window of per-address upload bytes. */
export const ADDRESS_UPLOAD_WINDOW_MS = 3_600_000;

/**
 * A limiter over the configuration's `intakeSessionsPerMinute` (0: session starts are not
 * limited) and `intakeAddressUploadBytesPerHour` (0: no per-address budget).
 */
export function createIntakeLimiter(config: Pick<Config, "intakeSessionsPerMinute"> & Partial<Pick<Config, "intakeAddressUploadBytesPerHour">>): IntakeLimiter {
  const starts = createRateLimiter();
  const uploads = createRateLimiter();
  const probes = createRateLimiter();
  const liveBySession = new Map<string, number>();
  const liveByAddress = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n > 0) m.set(k, n);
    else m.delete(k);
  };
  const heldBySession = new Map<string, number>();
  // Per address: the hour's window, the bytes sent in it, and the bytes uploads in flight may still send.
  const sentByAddress = new Map<string, { start: number; sent: number; held: number }>();
  let lastSweep = 0;
  const full = (sessionId: string, address: string) =>
    (liveBySession.get(sessionId) ?? 0) >= LIVE_SOCKETS_PER_SESSION || (liveByAddress.get(address) ?? 0) >= LIVE_SOCKETS_PER_ADDRESS;
  return {
    takeSessionStart(address, linkUuid) {
      const limit = config.intakeSessionsPerMinute;
      if (limit <= 0) return;
      const d = starts.take(`${address} ${linkUuid}`, limit);
      if (!d.allowed) throw rateLimited("session_start", "Too many sessions started from this address; retry after the time in Retry-After.", d.headers);
    },
    takeUpload(sessionId) {
      const d = uploads.take(sessionId, SESSION_UPLOADS_PER_MINUTE);
      if (!d.allowed) throw rateLimited("upload", `A session may upload at most ${SESSION_UPLOADS_PER_MINUTE} times a minute.`, d.headers);
    },
    holdUpload(sessionId, address, cap, nowMs = Date.now()) {
      const budget = config.intakeAddressUploadBytesPerHour ?? 0;
      if (nowMs - lastSweep > 60_000) {
        for (const [a, w] of sentByAddress) if (nowMs - w.start >= ADDRESS_UPLOAD_WINDOW_MS && w.held === 0) sentByAddress.delete(a);
        lastSweep = nowMs;
      }
      let window = sentByAddress.get(address);
      if (!window || nowMs - window.start >= ADDRESS_UPLOAD_WINDOW_MS) sentByAddress.set(address, (window = { start: nowMs, sent: 0, held: 0 }));
      const room = budget > 0 ? budget - window.sent - window.held : Infinity;
      const retryAfterS = Math.max(1, Math.ceil((window.start + ADDRESS_UPLOAD_WINDOW_MS - nowMs) / 1000));
      if (room <= 0) {
        throw addressUploadBudgetSpent(retryAfterS);
      }
      const addressLeft = Number.isFinite(room) ? Math.min(Math.max(1, cap), room) : Infinity;
      const othersInFlight = heldBySession.get(sessionId) ?? 0;
      let held = Math.max(0, cap);
      add(heldBySession, sessionId, held);
      const counted = window;
      let addressHeld = Number.isFinite(addressLeft) ? addressLeft : 0;
      counted.held += addressHeld;
      let receivedOnce = false;
      return {
        othersInFlight,
        addressLeft,
        retryAfterS,
        shrink(bytes) {
          const to = Math.max(0, Math.min(held, bytes));
          add(heldBySession, sessionId, to - held);
          held = to;
        },
        received(bytes) {
          if (receivedOnce) return;
          receivedOnce = true;
          counted.sent += bytes;
          counted.held -= addressHeld;
          addressHeld = 0;
        },
        release() {
          add(heldBySession, sessionId, -held);
          held = 0;
          counted.held -= addressHeld;
          addressHeld = 0;
        },
      };
    },
    takeProbe(sessionId) {
      const d = probes.take(sessionId, SESSION_PROBES_PER_MINUTE);
      if (!d.allowed) throw rateLimited("probe", `A session may ask for at most ${SESSION_PROBES_PER_MINUTE} follow-ups a minute.`, d.headers);
    },
    checkLive(sessionId, address) {
      if (full(sessionId, address)) {
        intakeLimitRefusals.labels("live_socket").inc();
        throw new AppError("RATE_LIMITED", `At most ${LIVE_SOCKETS_PER_SESSION} live connections per session and ${LIVE_SOCKETS_PER_ADDRESS} per address.`, {
          headers: { "Retry-After": "5" },
        });
      }
    },
    openLive(sessionId, address) {
      if (full(sessionId, address)) return null;
      add(liveBySession, sessionId, 1);
      add(liveByAddress, address, 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        add(liveBySession, sessionId, -1);
        add(liveByAddress, address, -1);
      };
    },
  };
}

const limiters = new WeakMap<object, IntakeLimiter>();

/** The one limiter of an app (keyed by its deps object, so the intake and live routes share it). */
export function intakeLimiterOf(deps: { config: Config }): IntakeLimiter {
  let l = limiters.get(deps);
  if (!l) limiters.set(deps, (l = createIntakeLimiter(deps.config)));
  return l;
}

/**
 * Bytes a session holds in recordings, files and follow-up recordings, leaving out the blobs of
 * `replacing` (the question whose upload would replace them).
 */
export async function storedUploadBytes(db: Kysely<Database>, blobs: BlobStore, responseUuid: string, replacing: string | null): Promise<number> {
  let total = 0;
  for (const a of await responsesRepo.answersOf(db, [responseUuid])) {
    if (a.question_uuid === replacing) continue;
    const keys = [a.audio_blob, a.file_blob, ...(JSON.parse(a.follow_ups) as StoredFollowUp[]).map((f) => f.audio_blob ?? null)];
    for (const k of keys) if (k) total += (await blobs.size(k)) ?? 0;
  }
  return total;
}

type PeerServer = { requestIP(r: Request): { address: string } | null } | null | undefined;
type LiveSocket = {
  raw: object;
  remoteAddress?: string;
  data: { request: Request; params: Record<string, string> };
  close(code?: number, reason?: string): void;
};

/** WebSocket close code for a refused socket (RFC 6455 §7.4.1: policy violation). */
const CLOSE_POLICY = 1008;

/**
 * The live route's guard for {@link LIVE_SOCKETS_PER_SESSION} and {@link LIVE_SOCKETS_PER_ADDRESS}:
 * `check` before the upgrade (429 problem+json), `open` when the socket opens (closes it with 1008
 * and returns false if a race put it over), `close` when it closes.
 */
export function liveSocketGuard(deps: { config: Config }) {
  const limiter = intakeLimiterOf(deps);
  const releases = new WeakMap<object, () => void>();
  // The address found before the upgrade, for `open` (its context has no server to ask).
  const addresses = new WeakMap<Request, string>();
  return {
    /** @throws AppError RATE_LIMITED when the session or the address has its sockets open already */
    check(sessionId: string, request: Request, server: PeerServer): void {
      const address = clientAddress(request, server?.requestIP(request)?.address ?? null, deps.config.trustedProxies);
      addresses.set(request, address);
      limiter.checkLive(sessionId, address);
    },
    open(ws: LiveSocket): boolean {
      const address = addresses.get(ws.data.request) ?? clientAddress(ws.data.request, ws.remoteAddress ?? null, deps.config.trustedProxies);
      const release = limiter.openLive(ws.data.params.session_id!, address);
      if (!release) {
        ws.close(CLOSE_POLICY, "too many live connections");
        return false;
      }
      releases.set(ws.raw, release);
      return true;
    },
    close(ws: Pick<LiveSocket, "raw">): void {
      releases.get(ws.raw)?.();
      releases.delete(ws.raw);
    },
  };
}
