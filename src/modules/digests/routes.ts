/**
 * @module digests/routes
 * `GET`/`PUT /api/v1/auth/notifications/`: the signed-in member's email digest of the session's
 * workspace (issue 28), in the language of the request's Accept-Language. Thin: parse, call one service function.
 */
import { Elysia } from "elysia";
import { clientAddress } from "../../auth/sessions.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { peerOf, type AppDeps } from "../../http/context.ts";
import { parseBody } from "../../http/operation.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { requestMailLanguage } from "../../http/mail-language.ts";
import { digestOps } from "./operations.ts";
import { getNotifications, setNotifications } from "./service.ts";

/** The notification preference routes. */
export function digestRoutes(deps: AppDeps) {
  return new Elysia({ name: "digests" })
    .use(authPlugin(deps))
    .get(digestOps.get.path, ({ session }) => getNotifications(deps, session), { session: true })
    .put(
      digestOps.set.path,
      (ctx) =>
        setNotifications(
          deps,
          ctx.session,
          { digest: parseBody(digestOps.set, requireJsonBody(ctx.request, ctx.body)).digest, lang: requestMailLanguage(ctx.request) },
          clientAddress(ctx.request, peerOf(ctx), deps.config),
        ),
      { session: true },
    );
}
