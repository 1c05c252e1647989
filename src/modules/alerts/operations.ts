/**
 * @module alerts/operations
 * OpenAPI catalogue entries of the alert endpoints (issue 28; docs/alerts.md).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { envelopeOf, operation, textOf, type Operation } from "../../http/operation.ts";
import { pageQuerySchema } from "../../http/pagination.ts";
import { alertSchema, createAlertSchema, patchAlertSchema, previewAlertSchema, previewSchema } from "./model.ts";

const BASE = "/api/v1/links/:link_uuid/alerts/";
const ONE = `${BASE}:alert_uuid/`;
const tag = "alerts";
const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED", "INSUFFICIENT_SCOPE"];
const WRITE = [...AUTH, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "NOT_FOUND"];
/** Create and update: an email destination needs mail configured. */
const WRITE_RULE = [...WRITE, "MAIL_NOT_CONFIGURED"];
const message = lazySchema(() => z.object({ message: z.string() }));

/** The alert rule endpoints, one declaration each: route, scope, audit, body and document entry. */
export const alertOps = {
  list: operation({
    method: "get",
    path: BASE,
    summary: "List the link's alert rules",
    tag,
    scope: "links:read",
    query: pageQuerySchema,
    success: { status: 200, schema: envelopeOf(alertSchema), description: "Page of alert rules" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "NOT_FOUND"],
  }),
  create: operation({
    method: "post",
    path: BASE,
    summary: "Create an alert rule (conditions and a chat, notification or email destination)",
    tag,
    audit: { action: "alert.created", target: (_p, b) => ({ type: "alert", uuid: textOf(b?.uuid), label: textOf(b?.name) }) },
    scope: "links:write",
    body: createAlertSchema,
    success: { status: 201, schema: alertSchema, description: "Created alert rule" },
    errors: WRITE_RULE,
  }),
  preview: operation({
    method: "post",
    path: `${BASE}preview/`,
    summary: "Preview the exact request a destination receives, for a saved or draft rule and a response or a sample",
    tag,
    scope: "links:write",
    body: previewAlertSchema,
    success: { status: 200, schema: previewSchema, description: "The request the destination would receive" },
    errors: WRITE,
  }),
  get: operation({
    method: "get",
    path: ONE,
    summary: "Retrieve an alert rule",
    tag,
    scope: "links:read",
    success: { status: 200, schema: alertSchema, description: "Alert rule" },
    errors: [...AUTH, "NOT_FOUND"],
  }),
  update: operation({
    method: "patch",
    path: ONE,
    summary: "Update an alert rule",
    tag,
    audit: { action: "alert.updated", target: (p, b) => ({ type: "alert", uuid: p.alert_uuid ?? null, label: textOf(b?.name) }) },
    scope: "links:write",
    body: patchAlertSchema,
    success: { status: 200, schema: alertSchema, description: "Updated alert rule" },
    errors: WRITE_RULE,
  }),
  remove: operation({
    method: "delete",
    path: ONE,
    summary: "Delete an alert rule",
    tag,
    audit: { action: "alert.deleted", target: (p) => ({ type: "alert", uuid: p.alert_uuid ?? null, label: null }) },
    scope: "links:write",
    success: { status: 200, schema: message, description: "Deleted" },
    errors: [...AUTH, "NOT_FOUND"],
  }),
};

export const alertOperations: Operation[] = Object.values(alertOps);
