/**
 * @module alerts/routes
 * `links/{link_uuid}/alerts/` endpoints (issue 28; docs/alerts.md). Thin: parse, call one service
 * function. Reads need `links:read`, writes (and the preview) `links:write`; writes are audited
 * by the central hook (audit/hook.ts).
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { createAlertSchema, patchAlertSchema, previewAlertSchema } from "./model.ts";
import * as service from "./service.ts";

export const ALERTS_PATH = "/api/v1/links/:link_uuid/alerts/";
export const ALERT_PATH = `${ALERTS_PATH}:alert_uuid/`;

/** The alert rule routes. */
export function alertRoutes(deps: AppDeps) {
  const d: service.AlertDeps = { db: deps.db, auth: deps.auth, allowHosts: deps.config.webhookAllowHosts, publicUrl: deps.config.publicUrl };
  return new Elysia({ name: "alerts" })
    .use(authPlugin(deps))
    .get(
      ALERTS_PATH,
      async ({ request, query, params, auth }) => {
        const page = readPage(query);
        const { count, results } = await service.listAlerts(d, auth, params.link_uuid, page.pageSize, page.offset);
        return envelope(request.url, deps.config.publicUrl, page, count, results);
      },
      { auth: "links:read" },
    )
    .post(
      ALERTS_PATH,
      async ({ request, body, params, set, auth }) => {
        const created = await service.createAlert(d, auth, params.link_uuid, parseWith(createAlertSchema, requireJsonBody(request, body)));
        set.status = 201;
        return created;
      },
      { auth: "links:write" },
    )
    .post(
      `${ALERTS_PATH}preview/`,
      ({ request, body, params, auth }) => service.previewAlert(d, auth, params.link_uuid, parseWith(previewAlertSchema, requireJsonBody(request, body))),
      { auth: "links:write" },
    )
    .get(ALERT_PATH, ({ params, auth }) => service.getAlert(d, auth, params.link_uuid, params.alert_uuid), { auth: "links:read" })
    .patch(
      ALERT_PATH,
      ({ request, body, params, auth }) =>
        service.patchAlert(d, auth, params.link_uuid, params.alert_uuid, parseWith(patchAlertSchema, requireJsonBody(request, body))),
      { auth: "links:write" },
    )
    .delete(
      ALERT_PATH,
      async ({ params, auth }) => {
        await service.deleteAlert(d, auth, params.link_uuid, params.alert_uuid);
        return { message: "Alert deleted." };
      },
      { auth: "links:write" },
    );
}
