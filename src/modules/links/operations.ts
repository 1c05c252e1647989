/**
 * @module links/operations
 * The declarations of the `links/` endpoints (spec: Endpoints; DESIGN §6): route, OpenAPI entry,
 * scope and audit in one place (collected by src/api/operations.ts).
 */
import { z } from "zod";
import { envelopeOf, operation, pagedQuery, textOf, type Operation } from "../../http/operation.ts";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { createLinkSchema, linkSchema, listLinksQuerySchema, patchLinkSchema } from "./model.ts";

const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED"];
const WRITE = [...AUTH, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
const message = lazySchema(() => z.object({ message: z.string() }));

/** The links endpoints, one declaration each: route, document entry, scope and audit. */
export const linkOps = {
  create: operation({
    method: "post",
    path: "/api/v1/links/",
    summary: "Create a link",
    tag: "links",
    scope: "links:write",
    audit: { action: "link.created", target: (_p, b) => ({ type: "link", uuid: textOf(b?.uuid), label: textOf(b?.name) }) },
    body: createLinkSchema,
    success: { status: 201, schema: linkSchema, description: "Created link" },
    errors: [...WRITE, "NAME_REQUIRED", "SLUG_CONFLICT", "LINK_LIMIT_REACHED", "INSUFFICIENT_SCOPE"],
  }),
  list: operation({
    method: "get",
    path: "/api/v1/links/",
    summary: "List links",
    tag: "links",
    scope: "links:read",
    query: pagedQuery(listLinksQuerySchema),
    success: { status: 200, schema: envelopeOf(linkSchema), description: "Page of links" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "INSUFFICIENT_SCOPE"],
  }),
  get: operation({
    method: "get",
    path: "/api/v1/links/:link_uuid/",
    summary: "Retrieve a link",
    tag: "links",
    scope: "links:read",
    success: { status: 200, schema: linkSchema, description: "Link" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
  update: operation({
    method: "patch",
    path: "/api/v1/links/:link_uuid/",
    summary: "Update a link (name, slug, status, settings, questions)",
    tag: "links",
    scope: "links:write",
    audit: { action: "link.updated", target: (p, b) => ({ type: "link", uuid: p.link_uuid ?? null, label: textOf(b?.name) }) },
    body: patchLinkSchema,
    success: { status: 200, schema: linkSchema, description: "Updated link" },
    errors: [...WRITE, "NAME_REQUIRED", "SLUG_CONFLICT", "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
  delete: operation({
    method: "delete",
    path: "/api/v1/links/:link_uuid/",
    summary: "Delete a link (its responses are kept)",
    tag: "links",
    scope: "links:write",
    audit: { action: "link.deleted", target: (p) => ({ type: "link", uuid: p.link_uuid ?? null, label: null }) },
    success: { status: 200, schema: message, description: "Deleted" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const linkOperations: Operation[] = Object.values(linkOps);
