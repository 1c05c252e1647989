/**
 * @module retention/operations
 * The OpenAPI entries of the retention dry runs (issue 25; docs/api.md "Retention").
 */
import { operation, type Operation } from "../../http/operation.ts";
import { linkPreviewInputSchema, retentionPreviewSchema, workspacePreviewInputSchema } from "./model.ts";

const ERRORS = [
  "UNAUTHENTICATED",
  "HTTPS_REQUIRED",
  "RATE_LIMITED",
  "INVALID_JSON",
  "VALIDATION_ERROR",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "INSUFFICIENT_SCOPE",
];

/** The retention endpoints, one declaration each: route, document entry and scope. */
export const retentionOps = {
  previewLink: operation({
    method: "post",
    path: "/api/v1/links/:link_uuid/retention/preview/",
    summary: "Dry run: what a link's retention override (or its saved one) would delete now; nothing is saved or deleted",
    tag: "links",
    scope: "links:write",
    body: linkPreviewInputSchema,
    success: { status: 200, schema: retentionPreviewSchema, description: "The effective policy and the counts" },
    errors: [...ERRORS, "NOT_FOUND"],
  }),
  previewWorkspace: operation({
    method: "post",
    path: "/api/v1/workspace/retention/preview/",
    summary: "Dry run: what a workspace retention policy (or the saved one) would delete now, with the links' overrides; nothing is saved or deleted",
    tag: "workspace",
    scope: "workspace:write",
    body: workspacePreviewInputSchema,
    success: { status: 200, schema: retentionPreviewSchema, description: "The policy and the counts" },
    errors: ERRORS,
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const retentionOperations: Operation[] = Object.values(retentionOps);
