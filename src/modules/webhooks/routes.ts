/**
 * @module webhooks/routes
 * `workspaces/{workspace_uuid}/webhooks/` endpoints (spec: Webhooks; DESIGN §8). Thin: parse,
 * call one service function. Reads need `webhooks:read`, everything else `webhooks:write`.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { createWebhookSchema, listDeliveriesQuerySchema, patchWebhookSchema } from "./model.ts";
import * as deliveries from "./deliveries.ts";
import * as service from "./service.ts";

const BASE = "/api/v1/workspaces/:workspace_uuid/webhooks/";
const ONE = `${BASE}:webhook_uuid/`;

/** The webhook management and delivery-log routes. */
export function webhookRoutes(deps: AppDeps) {
  const d: service.WebhookDeps = { db: deps.db, auth: deps.auth, allowHosts: deps.config.webhookAllowHosts, nudgeOutbox: () => deps.nudgeOutbox() };
  const publicUrl = deps.config.publicUrl;
  return new Elysia({ name: "webhooks" })
    .use(authPlugin(deps))
    .get(
      BASE,
      async ({ request, query, params, auth }) => {
        const page = readPage(query);
        const { count, results } = await service.listWebhooks(d, auth, params.workspace_uuid, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      },
      { auth: "webhooks:read" },
    )
    .post(
      BASE,
      async ({ request, body, params, set, auth }) => {
        service.assertOwnWorkspace(auth, params.workspace_uuid);
        const created = await service.createWebhook(d, auth, params.workspace_uuid, parseWith(createWebhookSchema, requireJsonBody(request, body)));
        set.status = 201;
        return created;
      },
      { auth: "webhooks:write" },
    )
    .get(ONE, async ({ params, auth }) => service.toWebhook(await service.findOwnWebhook(deps.db, auth, params.workspace_uuid, params.webhook_uuid)), {
      auth: "webhooks:read",
    })
    .patch(
      ONE,
      async ({ request, body, params, auth }) => {
        await service.findOwnWebhook(deps.db, auth, params.workspace_uuid, params.webhook_uuid);
        return service.patchWebhook(d, auth, params.workspace_uuid, params.webhook_uuid, parseWith(patchWebhookSchema, requireJsonBody(request, body)));
      },
      { auth: "webhooks:write" },
    )
    .delete(
      ONE,
      async ({ params, auth }) => {
        await service.deleteWebhook(d, auth, params.workspace_uuid, params.webhook_uuid);
        return { message: "Webhook deleted." };
      },
      { auth: "webhooks:write" },
    )
    .post(`${ONE}rotate-secret/`, ({ params, auth }) => service.rotateWebhookSecret(d, auth, params.workspace_uuid, params.webhook_uuid), {
      auth: "webhooks:write",
    })
    .post(
      `${ONE}test/`,
      async ({ params, set, auth }) => {
        const delivery = await deliveries.sendTestEvent(d, auth, params.workspace_uuid, params.webhook_uuid);
        set.status = 202;
        return delivery;
      },
      { auth: "webhooks:write" },
    )
    .get(
      `${ONE}deliveries/`,
      async ({ request, query, params, auth }) => {
        const page = readPage(query);
        const q = parseWith(listDeliveriesQuerySchema, { state: query.state }, "query");
        const { count, results } = await deliveries.listDeliveries(d, auth, params.workspace_uuid, params.webhook_uuid, q.state, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      },
      { auth: "webhooks:read" },
    )
    .get(
      `${ONE}deliveries/:delivery_uuid/`,
      ({ params, auth }) => deliveries.getDelivery(d, auth, params.workspace_uuid, params.webhook_uuid, params.delivery_uuid),
      { auth: "webhooks:read" },
    )
    .post(
      `${ONE}deliveries/:delivery_uuid/redeliver/`,
      async ({ params, set, auth }) => {
        const delivery = await deliveries.redeliver(d, auth, params.workspace_uuid, params.webhook_uuid, params.delivery_uuid);
        set.status = 202;
        return delivery;
      },
      { auth: "webhooks:write" },
    );
}
