/**
 * @module users/routes
 * `auth/` endpoints of the console (DESIGN §10; console contract): sign-in, sign-out, the session,
 * workspace switch, first-start setup, invites, password reset, and the user's own account.
 * Thin: parse, call one service function, set the cookie.
 */
import { Elysia } from "elysia";
import type { SessionAuth } from "../../auth/authenticate.ts";
import { isSecureTransport } from "../../auth/authenticate.ts";
import { createLoginThrottle } from "../../auth/login-throttle.ts";
import { assertSameOrigin, cameOverHttps, clientAddress, readCookie, sessionCookie, sha256Hex } from "../../auth/sessions.ts";
import { AppError } from "../../errors.ts";
import { peerOf, type AppDeps, type RouteCtx } from "../../http/context.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { sessionView } from "./accounts.ts";
import { acceptInviteSchema, changePasswordSchema, loginSchema, passwordResetSchema, patchMeSchema, setupSchema, switchWorkspaceSchema } from "./model.ts";
import * as service from "./service.ts";

/** The console's `auth/` routes; one sign-in throttle per app. */
export function authRoutes(deps: AppDeps) {
  const d: service.UsersDeps = { db: deps.db, throttle: createLoginThrottle(), publicUrl: deps.config.publicUrl };
  const address = (ctx: RouteCtx) => clientAddress(ctx.request, peerOf(ctx), deps.config);
  /** Sign-in style endpoints: the transport rule of DESIGN §4 and the same origin (no session yet). */
  const open = <R>(handler: (ctx: RouteCtx) => Promise<R>) => async (ctx: any): Promise<R> => {
    if (!isSecureTransport(ctx.request, peerOf(ctx), deps.config)) {
      throw new AppError("HTTPS_REQUIRED", "Sign-in works only over HTTPS (or from this machine).");
    }
    assertSameOrigin(ctx.request, peerOf(ctx), deps.config, false);
    return handler(ctx);
  };
  /** Endpoints of the signed-in user (any workspace); writes need the CSRF token. */
  const signedIn = <R>(handler: (ctx: RouteCtx, s: SessionAuth) => Promise<R>) => async (ctx: any): Promise<R> =>
    handler(ctx, await deps.auth.session(ctx.request, peerOf(ctx), { csrf: true }));
  const setCookie = (ctx: RouteCtx, value: string | null) => {
    ctx.set.headers["set-cookie"] = sessionCookie(value, cameOverHttps(ctx.request, peerOf(ctx), deps.config));
  };
  const body = <S extends Parameters<typeof parseWith>[0]>(schema: S, ctx: RouteCtx) => parseWith(schema, requireJsonBody(ctx.request, ctx.body));

  return new Elysia({ name: "auth" })
    .post(
      "/api/v1/auth/login/",
      open(async (ctx) => {
        const input = body(loginSchema, ctx);
        const previous = readCookie(ctx.request);
        const started = await service.login(d, input, address(ctx), previous ? sha256Hex(previous) : null);
        setCookie(ctx, started.cookie);
        return started.view;
      }),
    )
    .post(
      "/api/v1/auth/logout/",
      signedIn(async (ctx, s) => {
        await service.logout(deps.db, s.idHash);
        setCookie(ctx, null);
        return { message: "Signed out." };
      }),
    )
    .get("/api/v1/auth/session/", signedIn((_ctx, s) => sessionView(deps.db, s.idHash)))
    .post(
      "/api/v1/auth/session/workspace/",
      signedIn((ctx, s) => service.switchWorkspace(deps.db, s, body(switchWorkspaceSchema, ctx).workspace_uuid)),
    )
    .post(
      "/api/v1/auth/setup/",
      open(async (ctx) => {
        const started = await service.setup(d, body(setupSchema, ctx), address(ctx));
        setCookie(ctx, started.cookie);
        ctx.set.status = 201;
        return started.view;
      }),
    )
    .get("/api/v1/auth/invites/:token/", ({ params }) => service.describeInvite(deps.db, params.token))
    .post(
      "/api/v1/auth/invites/:token/accept/",
      open(async (ctx) => {
        const started = await service.acceptInvite(d, ctx.params.token!, body(acceptInviteSchema, ctx), address(ctx));
        setCookie(ctx, started.cookie);
        ctx.set.status = 201;
        return started.view;
      }),
    )
    .post(
      "/api/v1/auth/password-reset/",
      open(async (ctx) => {
        await service.resetPassword(d, body(passwordResetSchema, ctx), address(ctx));
        return { message: "Password set; every session of this account has ended. Sign in with the new password." };
      }),
    )
    .patch("/api/v1/auth/me/", signedIn((ctx, s) => service.updateMe(deps.db, s, body(patchMeSchema, ctx).name)))
    .post(
      "/api/v1/auth/me/password/",
      signedIn(async (ctx, s) => {
        await service.changePassword(d, s, body(changePasswordSchema, ctx), address(ctx));
        return { message: "Password changed; your other sessions have ended." };
      }),
    );
}
