/**
 * @module workspaces/operations
 * The declarations of the `workspace/` endpoints (DESIGN §3): route, OpenAPI entry, scope and
 * audit in one place (collected by src/api/operations.ts).
 */
import { operation, textOf, type Operation } from "../../http/operation.ts";
import { patchWorkspaceSchema, workspaceSchema } from "./model.ts";

const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED"];
const WRITE = [...AUTH, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

/** The workspace endpoints, one declaration each: route, document entry, scope and audit. */
export const workspaceOps = {
  get: operation({
    method: "get",
    path: "/api/v1/workspace/",
    summary: "The key's workspace, with limits and usage",
    tag: "workspace",
    scope: null,
    success: { status: 200, schema: workspaceSchema, description: "Workspace" },
    errors: AUTH,
  }),
  update: operation({
    method: "patch",
    path: "/api/v1/workspace/",
    summary: "Change the workspace's name, host, plan and limits (owners)",
    tag: "workspace",
    scope: "workspace:write",
    audit: { action: "workspace.updated", target: (_p, b) => ({ type: "workspace", uuid: textOf(b?.uuid), label: textOf(b?.name) }) },
    body: patchWorkspaceSchema,
    success: { status: 200, schema: workspaceSchema, description: "Workspace" },
    errors: [...WRITE, "NAME_REQUIRED", "INSUFFICIENT_SCOPE"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const workspaceOperations: Operation[] = Object.values(workspaceOps);
