/**
 * @module http/context
 * What the HTTP layer is built from (`AppDeps`, filled by src/app-deps.ts), the peer address of
 * a request, and the hand-over of a request's AuthContext to the hooks after its handler.
 * Authentication itself is the `auth` macro of http/auth-plugin.ts.
 */
import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import type { BlobStore } from "../blobs/store.ts";
import type { AuthContext, Authenticator } from "../auth/authenticate.ts";
import type { InferenceClient } from "../ai/inference-client.ts";
import type { Clock } from "../clock.ts";
import type { WebAssets } from "./web-assets.ts";
import type { AuditTarget } from "./operation.ts";

/**
 * The background worker of this node: `ok` (its loops turn), `starting` (not started yet, just
 * after listening), `stalled` (a loop has not turned for health/readiness.ts's `WORKER_STALL_MS`),
 * `paused` (`EARSHOT_JOBS_PAUSED`: deliveries run, jobs wait), `not_run_here` (`--role api`, or an
 * app built without one, as in tests).
 */
export type WorkerState = "ok" | "starting" | "stalled" | "paused" | "not_run_here";

/** Everything the routes need; no globals. */
export type AppDeps = {
  config: Config;
  db: Kysely<Database>;
  log: Logger;
  /** The time source (src/clock.ts): the system clock, or a test's manual clock. */
  clock: Clock;
  blobs: BlobStore;
  auth: Authenticator;
  /** HMAC key for signed audio URLs. */
  signingSecret: string;
  webAssets: WebAssets;
  /** The inference worker (transcription and insights), for work a respondent waits on. */
  inference: Pick<InferenceClient, "transcribe" | "analyse" | "buildThemes">;
  nudgeJobs: () => void;
  nudgeOutbox: () => void;
  /** This node's background worker state for `GET /healthz/ready` (server.ts); absent: none runs here. */
  workerState?: () => WorkerState;
  /**
   * Records a successful audited action (modules/audit/hook.ts, wired by src/app-deps.ts): the
   * auth plugin calls it after the re-check for a route whose declaration has `audit`, so the
   * HTTP layer imports no feature. Never throws.
   */
  audit: (auth: AuthContext, action: string, target: AuditTarget) => Promise<void>;
};

/** Peer address of the request (null inside `app.handle` tests). */
export function peerOf(ctx: { request: Request; server: { requestIP(r: Request): { address: string } | null } | null }): string | null {
  return ctx.server?.requestIP(ctx.request)?.address ?? null;
}

/**
 * The AuthContext of each authenticated request, handed from the auth macro's `resolve` to its
 * hooks after the handler (re-check, audit). Weak: entries go with their requests.
 */
export const authOfRequest = new WeakMap<Request, AuthContext>();
