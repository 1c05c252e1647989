/**
 * @module users/routes
 * `auth/` endpoints of the console (DESIGN §10; console contract): sign-in, sign-out, the session,
 * workspace switch, first-start setup, invites, password reset, and the user's own account.
 * Thin: parse, call one service function, set the cookie.
 */
import { Elysia } from "elysia";
import { createLoginThrottle } from "../../auth/login-throttle.ts";
import { cameOverHttps, clientAddress, readCookie, sessionCookie, sha256Hex } from "../../auth/sessions.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { AppError } from "../../errors.ts";
import { peerOf, type AppDeps } from "../../http/context.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { sessionView, type SessionView } from "./accounts.ts";
import { acceptInviteSchema, changePasswordSchema, loginSchema, passwordResetSchema, patchMeSchema, setupSchema, switchWorkspaceSchema } from "./model.ts";
import * as service from "./service.ts";

/** What the helpers below read of a request's context. */
type Ctx = { request: Request; server: Parameters<typeof peerOf>[0]["server"]; body: unknown; set: { headers: Record<string, string | number> } };

/**
 * The console's `auth/` routes; one sign-in throttle per app. Sign-in style endpoints declare
 * `signIn: true` (HTTPS or this machine, same origin; no session yet), the signed-in user's
 * endpoints `session: true` (writes need the CSRF token) — both macros of http/auth-plugin.ts.
 */
export function authRoutes(deps: AppDeps) {
  const d: service.UsersDeps = { db: deps.db, throttle: createLoginThrottle({ db: deps.db }), publicUrl: deps.config.publicUrl };
  const address = (ctx: Ctx) => clientAddress(ctx.request, peerOf(ctx), deps.config);
  // Every `Session` carries EARSHOT_PUBLIC_URL: the console warns when it is opened under another
  // origin, since links, QR codes and invites are built from it (issue 26).
  const withPublicUrl = async (view: Promise<SessionView> | SessionView) => ({ ...(await view), public_url: deps.config.publicUrl });
  const setCookie = (ctx: Ctx, value: string | null) => {
    ctx.set.headers["set-cookie"] = sessionCookie(value, cameOverHttps(ctx.request, peerOf(ctx), deps.config));
  };
  const body = <S extends Parameters<typeof parseWith>[0]>(schema: S, ctx: Ctx) => parseWith(schema, requireJsonBody(ctx.request, ctx.body));

  return new Elysia({ name: "auth" })
    .use(authPlugin(deps))
    .post(
      "/api/v1/auth/login/",
      async (ctx) => {
        if (!deps.config.passwordSignIn) throw new AppError("PASSWORD_SIGNIN_DISABLED", "Password sign-in is turned off here; sign in through single sign-on.");
        const input = body(loginSchema, ctx);
        const previous = readCookie(ctx.request);
        const started = await service.login(d, input, address(ctx), previous ? sha256Hex(previous) : null);
        setCookie(ctx, started.cookie);
        return withPublicUrl(started.view);
      },
      { signIn: true },
    )
    .post(
      "/api/v1/auth/logout/",
      async (ctx) => {
        await service.logout(deps.db, ctx.session.idHash);
        setCookie(ctx, null);
        return { message: "Signed out." };
      },
      { session: true },
    )
    .get("/api/v1/auth/session/", ({ session }) => withPublicUrl(sessionView(deps.db, session.idHash)), { session: true })
    .post(
      "/api/v1/auth/session/workspace/",
      (ctx) => withPublicUrl(service.switchWorkspace(deps.db, ctx.session, body(switchWorkspaceSchema, ctx).workspace_uuid)),
      {
        session: true,
      },
    )
    .post(
      "/api/v1/auth/setup/",
      async (ctx) => {
        const started = await service.setup(d, body(setupSchema, ctx), address(ctx));
        setCookie(ctx, started.cookie);
        ctx.set.status = 201;
        return withPublicUrl(started.view);
      },
      { signIn: true },
    )
    .get("/api/v1/auth/invites/:token/", ({ params }) => service.describeInvite(deps.db, params.token))
    .post(
      "/api/v1/auth/invites/:token/accept/",
      async (ctx) => {
        const started = await service.acceptInvite(d, ctx.params.token, body(acceptInviteSchema, ctx), address(ctx));
        setCookie(ctx, started.cookie);
        ctx.set.status = 201;
        return withPublicUrl(started.view);
      },
      { signIn: true },
    )
    .post(
      "/api/v1/auth/password-reset/",
      async (ctx) => {
        await service.resetPassword(d, body(passwordResetSchema, ctx), address(ctx));
        return { message: "Password set; every session of this account has ended. Sign in with the new password." };
      },
      { signIn: true },
    )
    .patch("/api/v1/auth/me/", (ctx) => withPublicUrl(service.updateMe(deps.db, ctx.session, body(patchMeSchema, ctx).name)), { session: true })
    .post(
      "/api/v1/auth/me/password/",
      async (ctx) => {
        await service.changePassword(d, ctx.session, body(changePasswordSchema, ctx), address(ctx));
        return { message: "Password changed; your other sessions have ended." };
      },
      { session: true },
    );
}
