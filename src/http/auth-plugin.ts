/**
 * @module http/auth-plugin
 * The `auth` macro every authenticated API route declares (DESIGN §4–§5; STYLE: "request-
 * dependent things as a named plugin with a macro"):
 *
 *   .get("/api/v1/links/:link_uuid/", ({ params, auth }) => getLink(d, auth, params.link_uuid), { auth: "links:read" })
 *
 * Before the handler (`resolve`): the Bearer key or the session cookie is authenticated for the
 * scope (CSRF and origin on cookie writes, rate limit, usage), the RateLimit-* headers are set on
 * every outcome (problems included: Elysia merges `set.headers` into error responses), and the
 * handler receives a typed `auth: AuthContext`. After it (`afterHandle`): the key, session, user
 * or membership is re-checked, so a revocation that raced the request answers 401 instead of the
 * data; then, when the route's declaration has `audit`, the action is recorded (`deps.audit`:
 * audit/hook.ts, wired by app-deps.ts) — in that order.
 * `{ scope, recheckBeforeResponding: false }` is only for revoking one's own key or session,
 * where the revocation is the request's whole effect; `{ scope: null }` accepts any valid key.
 *
 * Two more macros serve the console's `auth/` routes: `session: true` resolves the signed-in
 * user's `session: SessionAuth` (any workspace; writes need the CSRF token), and `signIn: true`
 * guards the sign-in style endpoints that have no session yet (HTTPS or this machine, same origin).
 */
import { Elysia } from "elysia";
import { isSecureTransport, type AuthContext } from "../auth/authenticate.ts";
import type { AnyScope } from "../auth/keys.ts";
import { assertSameOrigin } from "../auth/sessions.ts";
import { AppError } from "../errors.ts";
import { authOfRequest, peerOf, type AppDeps } from "./context.ts";
import type { AuditDeclaration, Operation } from "./operation.ts";
import { matchRoute, routePattern, type RoutePattern } from "./route-pattern.ts";

/** An audited route: what to record, and its path pattern (to read the path parameters from the request). */
type AuditOption = { declaration: AuditDeclaration; pattern: RoutePattern };

/** What a route declares: the scope it needs, or the scope with options (from its declaration: {@link routeOptions}). */
export type AuthOption = AnyScope | { scope: AnyScope | null; recheckBeforeResponding?: boolean; audit?: AuditOption };

/**
 * The route options of a keyed endpoint's declaration: the `auth` macro with its scope, whether
 * it re-checks before responding, and what it records in the audit log.
 *   .post(linkOps.create.path, handler, routeOptions(linkOps.create))
 * @throws Error for a public declaration (it has no key to check): a programming error
 */
export function routeOptions(op: Operation): { auth: AuthOption } {
  if (op.scope === "public") throw new Error(`${op.method.toUpperCase()} ${op.path} is public: it takes no auth macro`);
  return {
    auth: {
      scope: op.scope,
      ...(op.recheck === false ? { recheckBeforeResponding: false } : {}),
      ...(op.audit ? { audit: { declaration: op.audit, pattern: routePattern(op.path) } } : {}),
    },
  };
}

/** Records an audited route's success: its target from the path parameters and the handler's JSON answer. */
async function recordAudit(deps: AppDeps, audit: AuditOption, auth: AuthContext, request: Request, response: unknown): Promise<void> {
  const params = matchRoute(audit.pattern, new URL(request.url).pathname) ?? {};
  const body = response && typeof response === "object" && !(response instanceof Response) ? (response as Record<string, unknown>) : null;
  await deps.audit(auth, audit.declaration.action, audit.declaration.target(params, body));
}

/**
 * Authenticates `request` for `scope`, puts the RateLimit-* headers on `set`, and remembers the
 * context for the hooks after the handler. For the few routes whose authentication is
 * conditional (a signed recording URL needs none); every other route uses the macro.
 * @throws AppError HTTPS_REQUIRED, UNAUTHENTICATED, CSRF_FAILED, INSUFFICIENT_SCOPE, RATE_LIMITED
 */
export async function authenticateRequest(
  deps: AppDeps,
  ctx: { request: Request; server: Parameters<typeof peerOf>[0]["server"]; set: { headers: Record<string, string | number> } },
  scope: AnyScope | null,
): Promise<AuthContext> {
  const auth = await deps.auth.authenticate(ctx.request, peerOf(ctx), scope);
  Object.assign(ctx.set.headers, auth.rateHeaders);
  authOfRequest.set(ctx.request, auth);
  return auth;
}

// Each app (a test process builds several) gets its own plugin instance: the seed tells them apart.
const appIds = new WeakMap<AppDeps, number>();
let lastAppId = 0;

/** The named plugin carrying the `auth` macro, over one app's dependencies. */
export function authPlugin(deps: AppDeps) {
  if (!appIds.has(deps)) appIds.set(deps, ++lastAppId);
  return new Elysia({ name: "earshot-auth", seed: appIds.get(deps) }).macro({
    session: {
      async resolve({ request, server }) {
        return { session: await deps.auth.session(request, peerOf({ request, server }), { csrf: true }) };
      },
    },
    signIn: {
      beforeHandle({ request, server }) {
        const peer = peerOf({ request, server });
        if (!isSecureTransport(request, peer, deps.config)) throw new AppError("HTTPS_REQUIRED", "Sign-in works only over HTTPS (or from this machine).");
        assertSameOrigin(request, peer, deps.config, false);
      },
    },
    auth(option: AuthOption) {
      const scope = typeof option === "string" ? option : option.scope;
      const recheck = typeof option === "string" || option.recheckBeforeResponding !== false;
      const audit = typeof option === "string" ? undefined : option.audit;
      return {
        async resolve({ request, server, set }) {
          return { auth: await authenticateRequest(deps, { request, server, set }, scope) };
        },
        // The context is destructured, not passed whole: Elysia parses only what a route's hooks
        // read (cookies, query, headers), and a hook taking the whole context makes it parse all.
        async afterHandle({ request, response }) {
          const auth = authOfRequest.get(request);
          if (recheck && auth) await deps.auth.assertActive(deps.db, auth);
          if (audit && auth) await recordAudit(deps, audit, auth, request, response);
        },
      };
    },
  });
}
