/**
 * @module users/routes
 * `auth/` endpoints of the console (DESIGN §10; console contract): sign-in, sign-out, the session,
 * workspace switch, first-start setup, invites, password reset, and the user's own account.
 * Thin: parse, call one service function, set the cookie.
 */
import { Elysia } from "elysia";
import type { z } from "zod";
import { createLoginThrottle } from "../../auth/login-throttle.ts";
import { cameOverHttps, clientAddress, readCookie, sessionCookie, sha256Hex } from "../../auth/sessions.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { AppError } from "../../errors.ts";
import { peerOf, type AppDeps } from "../../http/context.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { parseBody } from "../../http/operation.ts";
import { sessionView, type SessionView } from "./accounts.ts";
import { accountOps } from "./operations.ts";
import * as service from "./service.ts";

/** What the helpers below read of a request's context. */
type Ctx = { request: Request; server: Parameters<typeof peerOf>[0]["server"]; body: unknown; set: { headers: Record<string, string | number> } };

/**
 * The console's `auth/` routes; one sign-in throttle per app. `opts.secondFactor` (two-factor,
 * wired by app.ts) makes sign-in and invite acceptance stop at TWO_FACTOR_REQUIRED for its users. Sign-in style endpoints declare
 * `signIn: true` (HTTPS or this machine, same origin; no session yet), the signed-in user's
 * endpoints `session: true` (writes need the CSRF token) — both macros of http/auth-plugin.ts.
 */
export function authRoutes(deps: AppDeps, opts: { secondFactor?: service.SecondFactorGate } = {}) {
  const d: service.UsersDeps = {
    db: deps.db,
    throttle: createLoginThrottle({ db: deps.db }),
    publicUrl: deps.config.publicUrl,
    secondFactor: opts.secondFactor,
  };
  const address = (ctx: Ctx) => clientAddress(ctx.request, peerOf(ctx), deps.config);
  // Every `Session` carries EARSHOT_PUBLIC_URL: the console warns when it is opened under another
  // origin, since links, QR codes and invites are built from it (issue 26).
  const withPublicUrl = async (view: Promise<SessionView> | SessionView) => ({ ...(await view), public_url: deps.config.publicUrl });
  const setCookie = (ctx: Ctx, value: string | null) => {
    ctx.set.headers["set-cookie"] = sessionCookie(value, cameOverHttps(ctx.request, peerOf(ctx), deps.config));
  };
  // Every body is parsed with the schema its declaration publishes (operations.ts).
  const body = <S extends z.ZodType>(op: { body: S }, ctx: Ctx) => parseBody(op, requireJsonBody(ctx.request, ctx.body));

  return new Elysia({ name: "auth" })
    .use(authPlugin(deps))
    .post(
      accountOps.login.path,
      async (ctx) => {
        if (!deps.config.passwordSignIn) throw new AppError("PASSWORD_SIGNIN_DISABLED", "Password sign-in is turned off here; sign in through single sign-on.");
        const input = body(accountOps.login, ctx);
        const previous = readCookie(ctx.request);
        const started = await service.login(d, input, address(ctx), previous ? sha256Hex(previous) : null);
        setCookie(ctx, started.cookie);
        return withPublicUrl(started.view);
      },
      { signIn: true },
    )
    .post(
      accountOps.logout.path,
      async (ctx) => {
        await service.logout(deps.db, ctx.session.idHash);
        setCookie(ctx, null);
        return { message: "Signed out." };
      },
      { session: true },
    )
    .get(accountOps.session.path, ({ session }) => withPublicUrl(sessionView(deps.db, session.idHash)), { session: true })
    .post(
      accountOps.switchWorkspace.path,
      (ctx) => withPublicUrl(service.switchWorkspace(deps.db, ctx.session, body(accountOps.switchWorkspace, ctx).workspace_uuid)),
      {
        session: true,
      },
    )
    .post(
      accountOps.setup.path,
      async (ctx) => {
        const started = await service.setup(d, body(accountOps.setup, ctx), address(ctx));
        setCookie(ctx, started.cookie);
        ctx.set.status = 201;
        return withPublicUrl(started.view);
      },
      { signIn: true },
    )
    .get(accountOps.invite.path, ({ params }) => service.describeInvite(deps.db, params.token))
    .post(
      accountOps.acceptInvite.path,
      async (ctx) => {
        // With password sign-in off, accepting an invite with a password would be a password
        // sign-in past single sign-on: the invitee signs in through SSO, which accepts it (oidc).
        if (!deps.config.passwordSignIn)
          throw new AppError("PASSWORD_SIGNIN_DISABLED", "Password sign-in is turned off here; accept the invite by signing in through single sign-on.");
        const started = await service.acceptInvite(d, ctx.params.token, body(accountOps.acceptInvite, ctx), address(ctx));
        setCookie(ctx, started.cookie);
        ctx.set.status = 201;
        return withPublicUrl(started.view);
      },
      { signIn: true },
    )
    .post(
      accountOps.passwordReset.path,
      async (ctx) => {
        await service.resetPassword(d, body(accountOps.passwordReset, ctx), address(ctx));
        return { message: "Password set; every session of this account has ended. Sign in with the new password." };
      },
      { signIn: true },
    )
    .patch(accountOps.updateMe.path, (ctx) => withPublicUrl(service.updateMe(deps.db, ctx.session, body(accountOps.updateMe, ctx).name)), { session: true })
    .post(
      accountOps.changePassword.path,
      async (ctx) => {
        await service.changePassword(d, ctx.session, body(accountOps.changePassword, ctx), address(ctx));
        return { message: "Password changed; your other sessions have ended." };
      },
      { session: true },
    );
}
