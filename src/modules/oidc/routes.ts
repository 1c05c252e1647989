/**
 * @module oidc/routes
 * Single sign-on endpoints (DESIGN §15): `GET auth/oidc/` (what the sign-in page offers),
 * `GET auth/oidc/workspaces/{workspace}/` (a workspace's own provider, for its sign-in page),
 * `GET auth/oidc/start/` (to the server's provider, or with `?workspace=` to the workspace's) and
 * `GET auth/oidc/callback/` (back, signed in; the flow cookie says whose provider it was). The
 * two last are browser navigations: they answer with redirects, and a failure lands on the
 * console's sign-in page as `?sso_error=CODE`, which the page explains. A user with two-factor on
 * lands there as `?two_factor=1` (the code step), the ticket in a cookie (two-factor/ticket-cookie.ts).
 */
import { Elysia } from "elysia";
import { isSecureTransport } from "../../auth/authenticate.ts";
import { oidcOps } from "./operations.ts";
import { createRateLimiter } from "../../auth/rate-limit.ts";
import { cameOverHttps, clientAddress, readCookie, sessionCookie, sha256Hex } from "../../auth/sessions.ts";
import { AppError } from "../../errors.ts";
import { peerOf, type AppDeps } from "../../http/context.ts";
import { FLOW_COOKIE, flowCookie, readFlow } from "./flow-cookie.ts";
import { createOidcFlows } from "./flow.ts";
import { createWorkspaceFlows } from "./workspace-flow.ts";
import { loadWorkspaceProvider, type WorkspaceSsoDeps } from "./workspace-provider.ts";
import { ticketCookie } from "../two-factor/ticket-cookie.ts";
import type { SecondFactorGate } from "../users/service.ts";

const SIGN_IN_PAGE = "/console/login/";
/**
 * Starts and callbacks together per client address and minute. Each callback costs a request to
 * the provider, and a flow cookie can be presented again and again: this bounds both, well above
 * what people behind one address signing in need (two requests each).
 */
export const OIDC_REQUESTS_PER_MINUTE = 60;

/** What the sign-in page needs to know (also public: it names no secret). */
export type SignInOptions = { oidc: { provider_name: string } | null; password_sign_in: boolean };

/**
 * The single sign-on routes; without `EARSHOT_OIDC_ISSUER` start and callback answer OIDC_NOT_CONFIGURED.
 * @param opts.secondFactor the two-factor gate: a user with two-factor on gets the code step, not a session
 */
export function oidcRoutes(deps: AppDeps, opts: { secondFactor?: SecondFactorGate } = {}) {
  const flows = createOidcFlows(deps.db, deps.config.oidc, deps.config.publicUrl, deps.clock, opts.secondFactor);
  const ssoDeps: WorkspaceSsoDeps = { db: deps.db, clock: deps.clock, publicUrl: deps.config.publicUrl, allowHosts: deps.config.webhookAllowHosts };
  const workspaceFlows = createWorkspaceFlows(ssoDeps, opts.secondFactor);
  const limiter = createRateLimiter({ db: deps.db, clock: deps.clock });
  const configured = () => {
    if (!flows) throw new AppError("OIDC_NOT_CONFIGURED", "Single sign-on is not configured on this server (EARSHOT_OIDC_ISSUER).");
    return flows;
  };
  type Ctx = { request: Request; server: Parameters<typeof peerOf>[0]["server"] };
  const secure = (ctx: Ctx) => cameOverHttps(ctx.request, peerOf(ctx), deps.config);
  const requireTransport = (ctx: Ctx) => {
    if (!isSecureTransport(ctx.request, peerOf(ctx), deps.config))
      throw new AppError("HTTPS_REQUIRED", "Sign-in works only over HTTPS (or from this machine).");
  };
  const redirect = (location: string, cookies: string[]) => {
    const headers = new Headers({ location, "cache-control": "no-store" });
    for (const c of cookies) headers.append("set-cookie", c);
    return new Response(null, { status: 303, headers });
  };
  const toSignInPage = (ctx: Ctx, code: string) => redirect(`${SIGN_IN_PAGE}?sso_error=${encodeURIComponent(code)}`, [flowCookie(null, secure(ctx))]);
  /** @throws AppError RATE_LIMITED past OIDC_REQUESTS_PER_MINUTE for the client's address */
  const admit = async (ctx: Ctx) => {
    const address = clientAddress(ctx.request, peerOf(ctx), deps.config) ?? "unknown";
    if (!(await limiter.take(`oidc:${address}`, OIDC_REQUESTS_PER_MINUTE)).allowed) {
      throw new AppError("RATE_LIMITED", "Too many single sign-on attempts from this address; wait a minute.");
    }
  };

  return new Elysia({ name: "oidc" })
    .get(
      oidcOps.options.path,
      // Under the sign-in transport rule like the rest of sign-in (HTTPS or this machine).
      (ctx): SignInOptions => {
        requireTransport(ctx);
        return {
          oidc: flows ? { provider_name: flows.settings.providerName } : null,
          password_sign_in: deps.config.passwordSignIn,
        };
      },
    )
    .get(oidcOps.workspaceOption.path, async (ctx) => {
      requireTransport(ctx);
      await admit(ctx);
      const { workspace, settings } = await loadWorkspaceProvider(ssoDeps, ctx.params.workspace);
      return {
        workspace_slug: workspace.slug,
        provider_name: settings.providerName,
        start_url: `${oidcOps.start.path}?workspace=${encodeURIComponent(workspace.slug)}`,
      };
    })
    .get(oidcOps.start.path, async (ctx) => {
      requireTransport(ctx);
      const query = new URL(ctx.request.url).searchParams;
      const workspace = query.get("workspace");
      // A workspace's own provider, or the server's (which must then be configured).
      const f = workspace === null ? configured() : { begin: (next: string | null) => workspaceFlows.begin(workspace, next) };
      try {
        await admit(ctx);
        const { url, flow } = await f.begin(query.get("next"));
        return redirect(url, [flowCookie(flow, secure(ctx))]);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        deps.log.warn("single sign-on could not start", { code: err.code, detail: err.message });
        return toSignInPage(ctx, err.code);
      }
    })
    .get(oidcOps.callback.path, async (ctx) => {
      requireTransport(ctx);
      // The flow cookie says whose provider this flow went to (the callback URL is the same for all).
      const toWorkspace = !!readFlow(readCookie(ctx.request, FLOW_COOKIE), deps.clock.nowMs())?.workspace_uuid;
      // Without a server provider, a callback with no usable flow is refused as one (OIDC_STATE_INVALID).
      const f = toWorkspace || !flows ? workspaceFlows : flows;
      const previous = readCookie(ctx.request);
      try {
        await admit(ctx);
        const started = await f.complete(
          new URL(ctx.request.url).search,
          readCookie(ctx.request, FLOW_COOKIE),
          clientAddress(ctx.request, peerOf(ctx), deps.config),
          previous ? sha256Hex(previous) : null,
        );
        return redirect(started.next ?? "/console/links/", [sessionCookie(started.cookie, secure(ctx)), flowCookie(null, secure(ctx))]);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const ticket = err.code === "TWO_FACTOR_REQUIRED" ? err.extensions?.ticket : undefined;
        if (ticket) {
          // The code step; the ticket rides in an HttpOnly cookie, not the URL (two-factor/ticket-cookie.ts).
          const query = new URLSearchParams({ two_factor: "1" });
          const next = readFlow(readCookie(ctx.request, FLOW_COOKIE), deps.clock.nowMs())?.next;
          if (next) query.set("next", next);
          return redirect(`${SIGN_IN_PAGE}?${query}`, [ticketCookie(ticket, secure(ctx)), flowCookie(null, secure(ctx))]);
        }
        // The detail (which check failed) is for the operator's log; the page explains the code.
        deps.log.warn("single sign-on refused", { code: err.code, detail: err.message });
        return toSignInPage(ctx, err.code);
      }
    });
}
