/**
 * @module two-factor/routes
 * Two-factor endpoints (issue 28; DESIGN §15; docs/console.md "Two-factor authentication"). The
 * signed-in user's own: `auth/two-factor/` status, `…/enrolment/` (+ `confirm/`), `…/disable/`,
 * `…/recovery-codes/`; the second sign-in step `POST auth/two-factor/` (no session yet); and the
 * workspace's requirement `PUT workspace/two-factor/` (owners and admins). Thin: parse, call one
 * service function. `twoFactorGate` is what app.ts hands to the sign-in routes.
 */
import { Elysia } from "elysia";
import type { z } from "zod";
import { createLoginThrottle } from "../../auth/login-throttle.ts";
import { cameOverHttps, clientAddress, readCookie, sessionCookie, sha256Hex } from "../../auth/sessions.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { peerOf, type AppDeps } from "../../http/context.ts";
import { parseBody } from "../../http/operation.ts";
import { requireJsonBody } from "../../http/validation.ts";
import type { TwoFactorDeps } from "./common.ts";
import { twoFactorOps } from "./operations.ts";
import * as service from "./service.ts";
import { completeSignIn, secondFactorGate } from "./sign-in.ts";
import { TICKET_COOKIE, ticketCookie } from "./ticket-cookie.ts";

type Ctx = { request: Request; server: Parameters<typeof peerOf>[0]["server"]; body: unknown; set: { headers: Record<string, string | number> } };

const perApp = new WeakMap<AppDeps, TwoFactorDeps>();
/** One set of two-factor dependencies (and one throttle) per app. */
function depsOf(deps: AppDeps): TwoFactorDeps {
  let d = perApp.get(deps);
  if (!d) {
    d = {
      db: deps.db,
      clock: deps.clock,
      throttle: createLoginThrottle({ db: deps.db, clock: deps.clock }),
      issuer: `Earshot (${new URL(deps.config.publicUrl).host})`,
    };
    perApp.set(deps, d);
  }
  return d;
}

/** The second-factor gate for the sign-in routes (users/routes.ts). */
export function twoFactorGate(deps: AppDeps) {
  return secondFactorGate(depsOf(deps));
}

/** The two-factor routes. */
export function twoFactorRoutes(deps: AppDeps) {
  const d = depsOf(deps);
  const address = (ctx: Ctx) => clientAddress(ctx.request, peerOf(ctx), deps.config);
  const body = <S extends z.ZodType>(op: { body: S }, ctx: Ctx) => parseBody(op, requireJsonBody(ctx.request, ctx.body));
  return new Elysia({ name: "two-factor" })
    .use(authPlugin(deps))
    .get(twoFactorOps.status.path, ({ session }) => service.getStatus(d, session), { session: true })
    .post(
      twoFactorOps.signIn.path,
      async (ctx) => {
        const previous = readCookie(ctx.request);
        const input = body(twoFactorOps.signIn, ctx);
        // After single sign-on the ticket is in an HttpOnly cookie the page cannot read (ticket-cookie.ts).
        const ticket = input.ticket ?? readCookie(ctx.request, TICKET_COOKIE) ?? undefined;
        const started = await completeSignIn(d, { ...input, ticket }, address(ctx), previous ? sha256Hex(previous) : null);
        const secure = cameOverHttps(ctx.request, peerOf(ctx), deps.config);
        ctx.set.headers["set-cookie"] = [sessionCookie(started.cookie, secure), ticketCookie(null, secure)] as unknown as string;
        return { ...started.view, public_url: deps.config.publicUrl };
      },
      { signIn: true },
    )
    .post(
      twoFactorOps.startEnrolment.path,
      async (ctx) => {
        ctx.set.status = 201;
        return service.startEnrolment(d, ctx.session);
      },
      { session: true },
    )
    .post(twoFactorOps.confirmEnrolment.path, (ctx) => service.confirmEnrolment(d, ctx.session, body(twoFactorOps.confirmEnrolment, ctx).code, address(ctx)), {
      session: true,
    })
    .post(
      twoFactorOps.disable.path,
      async (ctx) => {
        await service.disable(d, ctx.session, body(twoFactorOps.disable, ctx), address(ctx));
        return { message: "Two-factor authentication is off." };
      },
      { session: true },
    )
    .post(twoFactorOps.recoveryCodes.path, (ctx) => service.regenerateRecoveryCodes(d, ctx.session, body(twoFactorOps.recoveryCodes, ctx), address(ctx)), {
      session: true,
    })
    .put(
      twoFactorOps.requirement.path,
      (ctx) => service.setRequirement(d, ctx.auth, body(twoFactorOps.requirement, ctx).required),
      routeOptions(twoFactorOps.requirement),
    );
}
