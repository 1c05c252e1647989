/**
 * @module webhooks/operations
 * OpenAPI catalogue entries of the webhook endpoints (DESIGN §8; docs/webhooks.md).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { envelopeOf, pagedQuery, operation, textOf, type Operation } from "../../http/operation.ts";
import { pageQuerySchema } from "../../http/pagination.ts";
import {
  createWebhookSchema,
  deliveryDetailSchema,
  deliverySchema,
  listDeliveriesQuerySchema,
  patchWebhookSchema,
  webhookSchema,
  webhookWithSecretSchema,
} from "./model.ts";

const BASE = "/api/v1/workspaces/:workspace_uuid/webhooks/";
const ONE = `${BASE}:webhook_uuid/`;
const tag = "webhooks";
const read = "webhooks:read";
const write = "webhooks:write";
const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED", "INSUFFICIENT_SCOPE"];
const WRITE = [...AUTH, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "NOT_FOUND"];
const message = lazySchema(() => z.object({ message: z.string() }));

/** The webhook endpoints, one declaration each: route, document entry, scope and audit. */
export const webhookOps = {
  list: operation({
    method: "get",
    path: BASE,
    summary: "List the workspace's webhooks",
    tag,
    scope: read,
    query: pageQuerySchema,
    success: { status: 200, schema: envelopeOf(webhookSchema), description: "Page of webhooks" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "NOT_FOUND"],
  }),
  create: operation({
    method: "post",
    path: BASE,
    summary: "Create a webhook (the answer carries its signing secret, once)",
    tag,
    scope: write,
    audit: { action: "webhook.created", target: (_p, b) => ({ type: "webhook", uuid: textOf(b?.uuid), label: textOf(b?.url) }) },
    body: createWebhookSchema,
    success: { status: 201, schema: webhookWithSecretSchema, description: "Created webhook with its secret" },
    errors: WRITE,
  }),
  get: operation({
    method: "get",
    path: ONE,
    summary: "Retrieve a webhook",
    tag,
    scope: read,
    success: { status: 200, schema: webhookSchema, description: "Webhook" },
    errors: [...AUTH, "NOT_FOUND"],
  }),
  update: operation({
    method: "patch",
    path: ONE,
    summary: "Update a webhook's url, events or enabled (enabling clears disabled_reason)",
    tag,
    scope: write,
    audit: { action: "webhook.updated", target: (p, b) => ({ type: "webhook", uuid: p.webhook_uuid ?? null, label: textOf(b?.url) }) },
    body: patchWebhookSchema,
    success: { status: 200, schema: webhookSchema, description: "Updated webhook" },
    errors: WRITE,
  }),
  delete: operation({
    method: "delete",
    path: ONE,
    summary: "Delete a webhook and its delivery logs",
    tag,
    scope: write,
    audit: { action: "webhook.deleted", target: (p) => ({ type: "webhook", uuid: p.webhook_uuid ?? null, label: null }) },
    success: { status: 200, schema: message, description: "Deleted" },
    errors: [...AUTH, "NOT_FOUND"],
  }),
  rotateSecret: operation({
    method: "post",
    path: `${ONE}rotate-secret/`,
    summary: "Replace the signing secret; the previous one also signs for 24 h",
    tag,
    scope: write,
    audit: { action: "webhook.secret_rotated", target: (p) => ({ type: "webhook", uuid: p.webhook_uuid ?? null, label: null }) },
    success: { status: 200, schema: webhookWithSecretSchema, description: "Webhook with its new secret" },
    errors: [...AUTH, "NOT_FOUND"],
  }),
  test: operation({
    method: "post",
    path: `${ONE}test/`,
    summary: "Queue a signed webhook.test event for this webhook",
    tag,
    scope: write,
    success: { status: 202, schema: deliverySchema, description: "The test event's delivery" },
    errors: [...AUTH, "NOT_FOUND"],
  }),
  deliveries: operation({
    method: "get",
    path: `${ONE}deliveries/`,
    summary: "A webhook's delivery log, newest first",
    tag,
    scope: read,
    query: pagedQuery(listDeliveriesQuerySchema),
    success: { status: 200, schema: envelopeOf(deliverySchema), description: "Page of deliveries" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "NOT_FOUND"],
  }),
  delivery: operation({
    method: "get",
    path: `${ONE}deliveries/:delivery_uuid/`,
    summary: "One delivery with every attempt",
    tag,
    scope: read,
    success: { status: 200, schema: deliveryDetailSchema, description: "Delivery" },
    errors: [...AUTH, "NOT_FOUND"],
  }),
  redeliver: operation({
    method: "post",
    path: `${ONE}deliveries/:delivery_uuid/redeliver/`,
    summary: "Send a delivery's event again (same webhook-id)",
    tag,
    scope: write,
    success: { status: 202, schema: deliverySchema, description: "The delivery that will carry the event" },
    errors: [...AUTH, "NOT_FOUND", "VALIDATION_ERROR", "RESPONSE_ERASED"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const webhookOperations: Operation[] = Object.values(webhookOps);
