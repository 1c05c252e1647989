/**
 * @module http/context
 * What the HTTP layer is built from (the composition root fills it) and the `authed` wrapper
 * that every API route uses: authenticate with a scope, run the handler, re-check revocation
 * before responding, and carry the RateLimit-* headers on every outcome (DESIGN §4–§5).
 */
import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import type { BlobStore } from "../blobs/store.ts";
import { AppError } from "../errors.ts";
import type { AuthContext, Authenticator } from "../auth/authenticate.ts";
import type { AnyScope } from "../auth/keys.ts";
import type { InferenceClient } from "../ai/inference-client.ts";
import type { Clock } from "../clock.ts";

export type WebAsset = { body: Uint8Array | string; contentType: string };

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
  webAssets: Map<string, WebAsset>;
  /** The inference worker (transcription and insights), for work a respondent waits on. */
  inference: Pick<InferenceClient, "transcribe" | "analyse">;
  nudgeJobs: () => void;
  nudgeOutbox: () => void;
};

/** The parts of an Elysia context that routes read. */
export type RouteCtx = {
  request: Request;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  server: { requestIP(r: Request): { address: string } | null } | null;
  set: { status?: number | string; headers: Record<string, string | number> };
};
type Ctx = RouteCtx;

/** Peer address of the request (null inside `app.handle` tests). */
export function peerOf(ctx: Pick<Ctx, "request" | "server">): string | null {
  return ctx.server?.requestIP(ctx.request)?.address ?? null;
}

/**
 * The AuthContext of each authenticated request, for hooks that run after the handler (the audit
 * log records who acted). Weak: entries go with their requests.
 */
export const authOfRequest = new WeakMap<Request, AuthContext>();

/**
 * Wraps an API handler with authentication for `scope` (a Bearer key or the session cookie). `recheckBeforeResponding: false` is only
 * for revoking one's own key, where the revocation is the request's whole effect.
 * @returns an Elysia handler; errors keep the RateLimit-* headers
 */
export function authed<R>(
  deps: AppDeps,
  scope: AnyScope | null,
  handler: (ctx: RouteCtx, auth: AuthContext) => Promise<R> | R,
  opts: { recheckBeforeResponding?: boolean } = {},
) {
  // Elysia's inferred context types are wider than RouteCtx; the wrapper accepts any context.
  return async (ctx: any): Promise<R> => {
    const auth = await deps.auth.authenticate(ctx.request, peerOf(ctx), scope);
    Object.assign(ctx.set.headers, auth.rateHeaders);
    authOfRequest.set(ctx.request, auth);
    try {
      const result = await handler(ctx, auth);
      if (opts.recheckBeforeResponding !== false) await deps.auth.assertActive(deps.db, auth);
      return result;
    } catch (err) {
      if (err instanceof AppError && !err.headers) {
        throw new AppError(err.code, err.message, { errors: err.errors, headers: auth.rateHeaders });
      }
      throw err;
    }
  };
}
