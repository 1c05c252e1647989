/**
 * @module auth/authenticate
 * Authentication of API requests (spec: Authentication; DESIGN §4, §5, §10) by a Bearer API key
 * or the console's session cookie: transport check, key or session lookup by hash, CSRF check for
 * cookie writes, scope check, rate limit, usage accounting (keys only), and the re-checks that
 * make a revoked key, an ended session or a removed member fail even for requests in flight.
 */
import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import { isoAfter, nowIso } from "../clock.ts";
import type { Database, Executor } from "../db/schema.ts";
import { AppError } from "../errors.ts";
import { createDefinitionCache, definitionVersion } from "../db/definition-cache.ts";
import {
  deleteSession,
  findActiveTokenByHash,
  findMembership,
  findSession,
  findUserByUuid,
  findWorkspaceByUuid,
  isSessionActive,
  mustEnrol,
  isTokenActive,
  touchSession,
  type SessionRow,
  type TokenRow,
  type UserRow,
  type WorkspaceRow,
} from "./repository.ts";
import { limitsFor } from "./plans.ts";
import { hashApiKey, isWellFormedApiKey, type AnyScope } from "./keys.ts";
import type { RateLimiter } from "./rate-limit.ts";
import { createUsageRecorder, type UsageRecorder } from "./usage.ts";
import { ROLE_SCOPES, type Role } from "./roles.ts";
import { SESSION_IDLE_S, SESSION_TOUCH_S, assertSameOrigin, clientAddress, isStateChanging, readCookie, safeEqual, sha256Hex } from "./sessions.ts";
import { rateLimitRefusals } from "../metrics/instruments.ts";

/** Who acted, for the audit log: a key (uuid + name) or a console user (uuid + name). */
export type Actor = { type: "key" | "user"; uuid: string; name: string };

/** Who is calling: the key or the session's user, and the workspace it acts on. */
export type AuthContext = {
  actor: Actor;
  /** The API key's uuid; null for a session. */
  tokenUuid: string | null;
  /** The session's id hash; null for a key. */
  sessionIdHash: string | null;
  /** The user's role in the workspace; null for a key. */
  role: Role | null;
  /** The client's address (the peer, or what a trusted proxy forwarded). */
  clientAddress: string | null;
  workspaceUuid: string;
  workspace: WorkspaceRow;
  scopes: ReadonlySet<string>;
  /** RateLimit-* headers to put on the response, whatever its status. */
  rateHeaders: Record<string, string>;
};

/**
 * Refuses an account-wide change (password, name, second factor) to a session limited to one
 * workspace: its provider is that workspace's owner's, and vouches for nothing beyond it
 * (docs/decisions/oidc.md "A workspace's own provider").
 * @param what the change, for the message (e.g. "change the password")
 * @param memberOf when given, the workspaces the account belongs to: an account that belongs to the
 *   session's workspace alone may make the change (nothing beyond that workspace is reached)
 * @throws AppError SESSION_LIMITED_TO_WORKSPACE
 */
export function assertAccountWide(s: SessionAuth, what: string, memberOf?: readonly string[]): void {
  const limited = s.session.limited_to_workspace_uuid;
  if (limited && memberOf && memberOf.every((w) => w === limited)) return;
  if (limited) {
    throw new AppError(
      "SESSION_LIMITED_TO_WORKSPACE",
      `You signed in through a workspace's own single sign-on, which cannot ${what}. Sign in with your password or the server's single sign-on to do that.`,
    );
  }
}

/** The peer address as the server saw it (Bun's `server.requestIP`). */
export type PeerAddress = string | null;

/** A valid console session and its user (no workspace needed). */
export type SessionAuth = { idHash: string; session: SessionRow; user: UserRow };

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
   * Authenticates a request by its Bearer key, else its session cookie (acting on the session's
   * current workspace with the role's scopes), and charges it against the key's or the user's
   * rate limit. With the cookie, state-changing methods need the CSRF token and the same origin.
   * @param scope the scope the operation needs, or null when any valid key will do
   * @throws AppError HTTPS_REQUIRED, UNAUTHENTICATED, CSRF_FAILED, INSUFFICIENT_SCOPE (naming `scope`), RATE_LIMITED
   */
  authenticate(request: Request, peer: PeerAddress, scope: AnyScope | null): Promise<AuthContext>;
  /**
   * The request's console session, whatever its workspace (the `auth/` endpoints).
   * @param opts.csrf check `X-CSRF-Token` and the origin for state-changing methods
   * @throws AppError HTTPS_REQUIRED, UNAUTHENTICATED (no, unknown, expired session; disabled user), CSRF_FAILED
   */
  session(request: Request, peer: PeerAddress, opts: { csrf: boolean }): Promise<SessionAuth>;
  /**
   * Fails when the token was revoked since authentication; call inside write transactions and
   * before responding.
   * @throws AppError UNAUTHENTICATED
   */
  assertActive(db: Executor, auth: AuthContext): Promise<void>;
  /** The keys' coalesced usage accounting (DESIGN §5); `usage.stop()` at shutdown writes the rest. */
  usage: UsageRecorder;
}

/**
 * Builds the authenticator over the database, config and a rate limiter.
 * @param usage where key usage is recorded; by default a recorder over `db` flushing every 0.5 s
 */
export function createAuthenticator(db: Kysely<Database>, config: Config, limiter: RateLimiter, usage: UsageRecorder = createUsageRecorder(db)): Authenticator {
  /** API keys (by key hash) with their workspaces, as read at a definition version. */
  const keys = createDefinitionCache<{ token: TokenRow; workspace: WorkspaceRow }>();
  async function session(request: Request, peer: PeerAddress, opts: { csrf: boolean }): Promise<SessionAuth> {
    const cookie = readCookie(request);
    if (!cookie) throw new AppError("UNAUTHENTICATED", "Sign in first, or send an API key as 'Authorization: Bearer sk_live_…'.");
    if (!isSecureTransport(request, peer, config)) {
      throw new AppError("HTTPS_REQUIRED", "The console and its session cookie work only over HTTPS (or from this machine).");
    }
    const idHash = sha256Hex(cookie);
    const row = await findSession(db, idHash);
    if (!row) throw new AppError("UNAUTHENTICATED", "The session has ended; sign in again.");
    const now = nowIso();
    if (row.expires_at <= now || row.last_seen_at <= isoAfter(-SESSION_IDLE_S)) {
      await deleteSession(db, idHash);
      throw new AppError("UNAUTHENTICATED", "The session has expired; sign in again.");
    }
    const user = await findUserByUuid(db, row.user_uuid);
    if (!user || user.disabled) throw new AppError("UNAUTHENTICATED", "The session has ended; sign in again.");
    if (opts.csrf && isStateChanging(request.method)) {
      const token = request.headers.get("x-csrf-token") ?? "";
      if (!token || !safeEqual(token, row.csrf_token)) {
        throw new AppError("CSRF_FAILED", "Send the session's csrf_token in X-CSRF-Token with every change made with the session cookie.");
      }
      assertSameOrigin(request, peer, config, true);
    }
    if (row.last_seen_at <= isoAfter(-SESSION_TOUCH_S)) await touchSession(db, idHash, now);
    return { idHash, session: row, user };
  }

  async function bySession(request: Request, peer: PeerAddress, scope: AnyScope | null): Promise<AuthContext> {
    const s = await session(request, peer, { csrf: true });
    const wsUuid = s.session.workspace_uuid;
    // A session from a workspace's own provider acts on that workspace only (oidc/workspace-sign-in.ts):
    // anywhere else it is answered as a non-member is.
    const limited = s.session.limited_to_workspace_uuid;
    const membership = wsUuid && (!limited || limited === wsUuid) ? await findMembership(db, s.user.uuid, wsUuid) : undefined;
    const workspace = membership ? await findWorkspaceByUuid(db, membership.workspace_uuid) : undefined;
    if (!membership || !workspace) throw new AppError("UNAUTHENTICATED", "You are no longer a member of this workspace; sign in again.");
    // A workspace that requires a second factor answers a member without one nothing but the
    // `auth/` endpoints (enrolment among them) until they enrol (modules/two-factor).
    if (await mustEnrol(db, s.user.uuid, workspace.uuid)) {
      throw new AppError("TWO_FACTOR_ENROLMENT_REQUIRED", "This workspace requires two-factor authentication: turn it on in your account settings first.");
    }
    // One bucket per user (across their sessions), sized by the workspace's per-key limit.
    const rate = await limiter.take(`user:${s.user.uuid}`, limitsFor(workspace).requests_per_minute);
    const scopes = new Set<string>(ROLE_SCOPES[membership.role]);
    if (!rate.allowed) {
      rateLimitRefusals.labels("account").inc();
      throw new AppError("RATE_LIMITED", "Too many requests for this account; retry after the time in Retry-After.", { headers: rate.headers });
    }
    if (scope !== null && !scopes.has(scope)) {
      throw new AppError("INSUFFICIENT_SCOPE", `The role "${membership.role}" lacks the scope "${scope}".`, { headers: rate.headers });
    }
    return {
      actor: { type: "user", uuid: s.user.uuid, name: s.user.name },
      tokenUuid: null,
      sessionIdHash: s.idHash,
      role: membership.role,
      clientAddress: clientAddress(request, peer, config),
      workspaceUuid: workspace.uuid,
      workspace,
      scopes,
      rateHeaders: rate.headers,
    };
  }

  return {
    session,
    usage,
    async authenticate(request, peer, scope) {
      const header = request.headers.get("authorization") ?? "";
      if (!header && readCookie(request)) return bySession(request, peer, scope);
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (header && !isSecureTransport(request, peer, config)) {
        throw new AppError("HTTPS_REQUIRED", "API keys are accepted only over HTTPS.");
      }
      if (!match) throw new AppError("UNAUTHENTICATED", "Send an API key as 'Authorization: Bearer sk_live_…'.");
      const key = match[1]!;
      if (!isWellFormedApiKey(key)) throw new AppError("UNAUTHENTICATED", "The API key is malformed.");
      // The key and its workspace as last read, while the definition counter has not moved (one
      // read); else two indexed reads, compiled once. (One join is slower in SQLite: 12–15 µs
      // against 7–10 µs for both, bench/api.ts notes in docs/performance.md.) Unknown keys are
      // never cached. A revocation that races the request is caught by assertActive, uncached.
      const keyHash = hashApiKey(key);
      const version = await definitionVersion(db);
      let known = keys.get(db, keyHash, version);
      if (!known) {
        const row = await findActiveTokenByHash(db, keyHash);
        if (!row) throw new AppError("UNAUTHENTICATED", "The API key is unknown or revoked.");
        const ws = await findWorkspaceByUuid(db, row.workspace_uuid);
        if (!ws) throw new AppError("UNAUTHENTICATED", "The API key's workspace no longer exists.");
        known = { token: row, workspace: ws };
        keys.set(db, keyHash, version, known);
      }
      const { token, workspace } = known;
      const rate = await limiter.take(token.uuid, limitsFor(workspace).requests_per_minute);
      const scopes = new Set(token.scopes.split(" "));
      const auth: AuthContext = {
        actor: { type: "key", uuid: token.uuid, name: token.name },
        tokenUuid: token.uuid,
        sessionIdHash: null,
        role: null,
        clientAddress: clientAddress(request, peer, config),
        workspaceUuid: workspace.uuid,
        workspace,
        scopes,
        rateHeaders: rate.headers,
      };
      if (!rate.allowed) {
        rateLimitRefusals.labels("api_key").inc();
        throw new AppError("RATE_LIMITED", "Too many requests for this API key; retry after the time in Retry-After.", {
          headers: rate.headers,
        });
      }
      // Coalesced (DESIGN §5): recorded in memory, written within a second; never awaited here.
      usage.record(token.uuid, workspace.uuid, nowIso());
      if (scope !== null && !scopes.has(scope)) {
        throw new AppError("INSUFFICIENT_SCOPE", `This API key lacks the scope "${scope}".`, { headers: rate.headers });
      }
      return auth;
    },
    async assertActive(q, auth) {
      if (auth.sessionIdHash !== null) {
        if (!(await isSessionActive(q, auth.sessionIdHash, auth.workspaceUuid, auth.role))) {
          throw new AppError("UNAUTHENTICATED", "The session has ended.", { headers: auth.rateHeaders });
        }
        return;
      }
      if (!(await isTokenActive(q, auth.tokenUuid!))) {
        throw new AppError("UNAUTHENTICATED", "The API key was revoked.", { headers: auth.rateHeaders });
      }
    },
  };
}
