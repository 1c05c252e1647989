/**
 * @module webhooks/routes
 * `workspaces/{workspace_uuid}/webhooks/` endpoints (spec: Webhooks; DESIGN §8). Thin: parse,
 * call one service function. Reads need `webhooks:read`, everything else `webhooks:write`.
 */
import { Elysia } from "elysia";
import { authed, type AppDeps } from "../../http/context.ts";
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
    .get(
      BASE,
      authed(deps, "webhooks:read", async ({ request, query, params }, auth) => {
        const page = readPage(query);
        const { count, results } = await service.listWebhooks(d, auth, params.workspace_uuid!, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      }),
    )
    .post(
      BASE,
      authed(deps, "webhooks:write", async ({ request, body, params, set }, auth) => {
        service.assertOwnWorkspace(auth, params.workspace_uuid!);
        const created = await service.createWebhook(d, auth, params.workspace_uuid!, parseWith(createWebhookSchema, requireJsonBody(request, body)));
        set.status = 201;
        return created;
      }),
    )
    .get(
      ONE,
      authed(deps, "webhooks:read", async ({ params }, auth) =>
        service.toWebhook(await service.findOwnWebhook(deps.db, auth, params.workspace_uuid!, params.webhook_uuid!)),
      ),
    )
    .patch(
      ONE,
      authed(deps, "webhooks:write", async ({ request, body, params }, auth) => {
        await service.findOwnWebhook(deps.db, auth, params.workspace_uuid!, params.webhook_uuid!);
        return service.patchWebhook(d, auth, params.workspace_uuid!, params.webhook_uuid!, parseWith(patchWebhookSchema, requireJsonBody(request, body)));
      }),
    )
    .delete(
      ONE,
      authed(deps, "webhooks:write", async ({ params }, auth) => {
        await service.deleteWebhook(d, auth, params.workspace_uuid!, params.webhook_uuid!);
        return { message: "Webhook deleted." };
      }),
    )
    .post(
      `${ONE}rotate-secret/`,
      authed(deps, "webhooks:write", ({ params }, auth) => service.rotateWebhookSecret(d, auth, params.workspace_uuid!, params.webhook_uuid!)),
    )
    .post(
      `${ONE}test/`,
      authed(deps, "webhooks:write", async ({ params, set }, auth) => {
        const delivery = await deliveries.sendTestEvent(d, auth, params.workspace_uuid!, params.webhook_uuid!);
        set.status = 202;
        return delivery;
      }),
    )
    .get(
      `${ONE}deliveries/`,
      authed(deps, "webhooks:read", async ({ request, query, params }, auth) => {
        const page = readPage(query);
        const q = parseWith(listDeliveriesQuerySchema, { state: query.state }, "query");
        const { count, results } = await deliveries.listDeliveries(d, auth, params.workspace_uuid!, params.webhook_uuid!, q.state, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      }),
    )
    .get(
      `${ONE}deliveries/:delivery_uuid/`,
      authed(deps, "webhooks:read", ({ params }, auth) => deliveries.getDelivery(d, auth, params.workspace_uuid!, params.webhook_uuid!, params.delivery_uuid!)),
    )
    .post(
      `${ONE}deliveries/:delivery_uuid/redeliver/`,
      authed(deps, "webhooks:write", async ({ params, set }, auth) => {
        const delivery = await deliveries.redeliver(d, auth, params.workspace_uuid!, params.webhook_uuid!, params.delivery_uuid!);
        set.status = 202;
        return delivery;
      }),
    );
}
