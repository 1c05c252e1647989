/**
 * @module mail/routes
 * `GET /api/v1/mail/` (is mail configured?) and `POST /api/v1/mail/test/` (send a test message
 * now; owners and admins: `members:write`). The message's language is the caller's
 * `Accept-Language` among the mail catalogs, else English.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { parseBody } from "../../http/operation.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { requestMailLanguage } from "../../http/mail-language.ts";
import { mailOps } from "./operations.ts";
import { mailSettings, sendTestMail } from "./service.ts";

/** The mail settings endpoints. */
export function mailRoutes(deps: AppDeps) {
  return new Elysia({ name: "mail" })
    .use(authPlugin(deps))
    .get(mailOps.settings.path, () => mailSettings(deps.config), routeOptions(mailOps.settings))
    .post(
      mailOps.test.path,
      ({ request, body, auth }) =>
        sendTestMail({ db: deps.db, config: deps.config }, auth, parseBody(mailOps.test, requireJsonBody(request, body)), requestMailLanguage(request)),
      routeOptions(mailOps.test),
    );
}
