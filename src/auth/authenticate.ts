/**
 * @module auth/authenticate
 * Bearer API key authentication (spec: Authentication; DESIGN §4–§5): transport check, key
 * lookup by hash, scope check, rate limit, usage accounting, and the revocation re-checks that
 * make a revoked key fail even for requests already in flight.
 */
import type { Kysely, Transaction } from "kysely";
import type { Config } from "../config.ts";
import { nowIso } from "../clock.ts";
import type { Database } from "../db/schema.ts";
import { AppError } from "../errors.ts";
import { findActiveTokenByHash, isTokenActive, touchToken } from "../modules/tokens/repository.ts";
import { addApiCall, findWorkspaceByUuid, type WorkspaceRow } from "../modules/workspaces/repository.ts";
import { limitsFor } from "../modules/workspaces/plans.ts";
import { hashApiKey, isWellFormedApiKey, type Scope } from "./keys.ts";
import type { RateLimiter } from "./rate-limit.ts";

/** Who is calling: the token and its workspace. */
export type AuthContext = {
  tokenUuid: string;
  workspaceUuid: string;
  workspace: WorkspaceRow;
  scopes: ReadonlySet<string>;
  /** RateLimit-* headers to put on the response, whatever its status. */
  rateHeaders: Record<string, string>;
};

/** The peer address as the server saw it (Bun's `server.requestIP`). */
export type PeerAddress = string | null;

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * True when the request reached us over HTTPS, from loopback, or through a trusted proxy that
 * says `X-Forwarded-Proto: https` (DESIGN §4).
 */
export function isSecureTransport(request: Request, peer: PeerAddress, config: Config): boolean {
  if (config.allowInsecureHttp) return true;
  if (new URL(request.url).protocol === "https:") return true;
  if (!peer) return false;
  if (LOOPBACK.test(peer)) return true;
  const viaProxy = config.trustedProxies.includes(peer) || config.trustedProxies.includes(peer.replace(/^::ffff:/, ""));
  return viaProxy && request.headers.get("x-forwarded-proto")?.toLowerCase() === "https";
}

export interface Authenticator {
  /**
   * Authenticates a request and charges it against the key's rate limit.
   * @param scope the scope the operation needs, or null when any valid key will do
   * @throws AppError HTTPS_REQUIRED, UNAUTHENTICATED, INSUFFICIENT_SCOPE (naming `scope`), RATE_LIMITED
   */
  authenticate(request: Request, peer: PeerAddress, scope: Scope | null): Promise<AuthContext>;
  /**
   * Fails when the token was revoked since authentication; call inside write transactions and
   * before responding.
   * @throws AppError UNAUTHENTICATED
   */
  assertActive(db: Kysely<Database> | Transaction<Database>, auth: AuthContext): Promise<void>;
}

/** Builds the authenticator over the database, config and a rate limiter. */
export function createAuthenticator(db: Kysely<Database>, config: Config, limiter: RateLimiter): Authenticator {
  return {
    async authenticate(request, peer, scope) {
      const header = request.headers.get("authorization") ?? "";
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (header && !isSecureTransport(request, peer, config)) {
        throw new AppError("HTTPS_REQUIRED", "API keys are accepted only over HTTPS.");
      }
      if (!match) throw new AppError("UNAUTHENTICATED", "Send an API key as 'Authorization: Bearer sk_live_…'.");
      const key = match[1]!;
      if (!isWellFormedApiKey(key)) throw new AppError("UNAUTHENTICATED", "The API key is malformed.");
      const token = await findActiveTokenByHash(db, hashApiKey(key));
      if (!token) throw new AppError("UNAUTHENTICATED", "The API key is unknown or revoked.");
      const workspace = await findWorkspaceByUuid(db, token.workspace_uuid);
      if (!workspace) throw new AppError("UNAUTHENTICATED", "The API key's workspace no longer exists.");
      const rate = limiter.take(token.uuid, limitsFor(workspace).requests_per_minute);
      const scopes = new Set(token.scopes.split(" "));
      const auth: AuthContext = {
        tokenUuid: token.uuid,
        workspaceUuid: workspace.uuid,
        workspace,
        scopes,
        rateHeaders: rate.headers,
      };
      if (!rate.allowed) {
        throw new AppError("RATE_LIMITED", "Too many requests for this API key; retry after the time in Retry-After.", {
          headers: rate.headers,
        });
      }
      const now = nowIso();
      await db.transaction().execute(async (trx) => {
        await touchToken(trx, token.uuid, now);
        await addApiCall(trx, workspace.uuid, now.slice(0, 10));
      });
      if (scope !== null && !scopes.has(scope)) {
        throw new AppError("INSUFFICIENT_SCOPE", `This API key lacks the scope "${scope}".`, { headers: rate.headers });
      }
      return auth;
    },
    async assertActive(q, auth) {
      if (!(await isTokenActive(q, auth.tokenUuid))) {
        throw new AppError("UNAUTHENTICATED", "The API key was revoked.", { headers: auth.rateHeaders });
      }
    },
  };
}
