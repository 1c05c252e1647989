/**
 * @module webhooks/routes
 * `workspaces/{workspace_uuid}/webhooks/` endpoints (spec: Webhooks; DESIGN §8). Thin: parse,
 * call one service function. Reads need `webhooks:read`, everything else `webhooks:write`.
 */
import { Elysia } from "elysia";
import { parseBody } from "../../http/operation.ts";
import { webhookOps } from "./operations.ts";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { listDeliveriesQuerySchema } from "./model.ts";
import * as deliveries from "./deliveries.ts";
import * as service from "./service.ts";

/** The webhook management and delivery-log routes. */
export function webhookRoutes(deps: AppDeps) {
  const d: service.WebhookDeps = { db: deps.db, auth: deps.auth, allowHosts: deps.config.webhookAllowHosts, nudgeOutbox: () => deps.nudgeOutbox() };
  const publicUrl = deps.config.publicUrl;
  return new Elysia({ name: "webhooks" })
    .use(authPlugin(deps))
    .get(
      webhookOps.list.path,
      async ({ request, query, params, auth }) => {
        const page = readPage(query);
        const { count, results } = await service.listWebhooks(d, auth, params.workspace_uuid, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      },
      routeOptions(webhookOps.list),
    )
    .post(
      webhookOps.create.path,
      async ({ request, body, params, set, auth }) => {
        service.assertOwnWorkspace(auth, params.workspace_uuid);
        const created = await service.createWebhook(d, auth, params.workspace_uuid, parseBody(webhookOps.create, requireJsonBody(request, body)));
        set.status = 201;
        return created;
      },
      routeOptions(webhookOps.create),
    )
    .get(
      webhookOps.get.path,
      async ({ params, auth }) => service.toWebhook(await service.findOwnWebhook(deps.db, auth, params.workspace_uuid, params.webhook_uuid)),
      routeOptions(webhookOps.get),
    )
    .patch(
      webhookOps.update.path,
      async ({ request, body, params, auth }) => {
        await service.findOwnWebhook(deps.db, auth, params.workspace_uuid, params.webhook_uuid);
        return service.patchWebhook(d, auth, params.workspace_uuid, params.webhook_uuid, parseBody(webhookOps.update, requireJsonBody(request, body)));
      },
      routeOptions(webhookOps.update),
    )
    .delete(
      webhookOps.delete.path,
      async ({ params, auth }) => {
        await service.deleteWebhook(d, auth, params.workspace_uuid, params.webhook_uuid);
        return { message: "Webhook deleted." };
      },
      routeOptions(webhookOps.delete),
    )
    .post(
      webhookOps.rotateSecret.path,
      ({ params, auth }) => service.rotateWebhookSecret(d, auth, params.workspace_uuid, params.webhook_uuid),
      routeOptions(webhookOps.rotateSecret),
    )
    .post(
      webhookOps.test.path,
      async ({ params, set, auth }) => {
        const delivery = await deliveries.sendTestEvent(d, auth, params.workspace_uuid, params.webhook_uuid);
        set.status = 202;
        return delivery;
      },
      routeOptions(webhookOps.test),
    )
    .get(
      webhookOps.deliveries.path,
      async ({ request, query, params, auth }) => {
        const page = readPage(query);
        const q = parseWith(listDeliveriesQuerySchema, { state: query.state }, "query");
        const { count, results } = await deliveries.listDeliveries(d, auth, params.workspace_uuid, params.webhook_uuid, q.state, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      },
      routeOptions(webhookOps.deliveries),
    )
    .get(
      webhookOps.delivery.path,
      ({ params, auth }) => deliveries.getDelivery(d, auth, params.workspace_uuid, params.webhook_uuid, params.delivery_uuid),
      routeOptions(webhookOps.delivery),
    )
    .post(
      webhookOps.redeliver.path,
      async ({ params, set, auth }) => {
        const delivery = await deliveries.redeliver(d, auth, params.workspace_uuid, params.webhook_uuid, params.delivery_uuid);
        set.status = 202;
        return delivery;
      },
      routeOptions(webhookOps.redeliver),
    );
}
