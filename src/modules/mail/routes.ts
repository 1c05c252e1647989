/**
 * @module mail/routes
 * `GET /api/v1/mail/` (is mail configured?) and `POST /api/v1/mail/test/` (send a test message
 * now; owners and admins: `members:write`). The message's language is the caller's
 * `Accept-Language` among the mail catalogs, else English.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { requestMailLanguage } from "../../http/mail-language.ts";
import { mailTestSchema } from "./model.ts";
import { mailSettings, sendTestMail } from "./service.ts";

/** The mail settings endpoints. */
export function mailRoutes(deps: AppDeps) {
  return new Elysia({ name: "mail" })
    .use(authPlugin(deps))
    .get("/api/v1/mail/", () => mailSettings(deps.config), { auth: "members:read" })
    .post(
      "/api/v1/mail/test/",
      ({ request, body, auth }) =>
        sendTestMail({ db: deps.db, config: deps.config }, auth, parseWith(mailTestSchema, requireJsonBody(request, body)), requestMailLanguage(request)),
      { auth: "members:write" },
    );
}
