/**
 * @module alerts/routes
 * `links/{link_uuid}/alerts/` endpoints (issue 28; docs/alerts.md). Thin: parse, call one service
 * function. Paths, scopes (reads `links:read`, writes and the preview `links:write`), the audit of
 * writes and the bodies come from the declarations (./operations.ts).
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseBody } from "../../http/operation.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { requestMailLanguage } from "../../http/mail-language.ts";
import { alertOps } from "./operations.ts";
import { mailEnabled } from "../mail/service.ts";
import * as service from "./service.ts";

/** The alert rule routes. */
export function alertRoutes(deps: AppDeps) {
  const d: service.AlertDeps = {
    db: deps.db,
    auth: deps.auth,
    allowHosts: deps.config.webhookAllowHosts,
    publicUrl: deps.config.publicUrl,
    mailConfigured: mailEnabled(deps.config),
  };
  return new Elysia({ name: "alerts" })
    .use(authPlugin(deps))
    .get(
      alertOps.list.path,
      async ({ request, query, params, auth }) => {
        const page = readPage(query);
        const { count, results } = await service.listAlerts(d, auth, params.link_uuid, page.pageSize, page.offset);
        return envelope(request.url, deps.config.publicUrl, page, count, results);
      },
      routeOptions(alertOps.list),
    )
    .post(
      alertOps.create.path,
      async ({ request, body, params, set, auth }) => {
        const input = parseBody(alertOps.create, requireJsonBody(request, body));
        const created = await service.createAlert(d, auth, params.link_uuid, input, requestMailLanguage(request));
        set.status = 201;
        return created;
      },
      routeOptions(alertOps.create),
    )
    .post(
      alertOps.preview.path,
      ({ request, body, params, auth }) =>
        service.previewAlert(d, auth, params.link_uuid, parseBody(alertOps.preview, requireJsonBody(request, body)), requestMailLanguage(request)),
      routeOptions(alertOps.preview),
    )
    .get(alertOps.get.path, ({ params, auth }) => service.getAlert(d, auth, params.link_uuid, params.alert_uuid), routeOptions(alertOps.get))
    .patch(
      alertOps.update.path,
      ({ request, body, params, auth }) =>
        service.patchAlert(d, auth, params.link_uuid, params.alert_uuid, parseBody(alertOps.update, requireJsonBody(request, body))),
      routeOptions(alertOps.update),
    )
    .delete(
      alertOps.remove.path,
      async ({ params, auth }) => {
        await service.deleteAlert(d, auth, params.link_uuid, params.alert_uuid);
        return { message: "Alert deleted." };
      },
      routeOptions(alertOps.remove),
    );
}
