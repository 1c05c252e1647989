/**
 * @module retention/routes
 * The dry runs of retention (issue 25; docs/api.md "Retention"): `POST links/{link_uuid}/retention/preview/`
 * (scope `links:write`, the scope that saves a link's override) and `POST workspace/retention/preview/`
 * (scope `workspace:write`, the scope that saves the workspace's policy). Nothing is saved or deleted.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { linkPreviewInputSchema, workspacePreviewInputSchema } from "./model.ts";
import { previewLinkRetention, previewWorkspaceRetention } from "./preview.ts";

export function retentionRoutes(deps: AppDeps) {
  return new Elysia({ name: "retention" })
    .use(authPlugin(deps))
    .post(
      "/api/v1/links/:link_uuid/retention/preview/",
      ({ request, body, params, auth }) =>
        previewLinkRetention(deps, auth, params.link_uuid, parseWith(linkPreviewInputSchema, requireJsonBody(request, body))),
      { auth: "links:write" },
    )
    .post(
      "/api/v1/workspace/retention/preview/",
      ({ request, body, auth }) => previewWorkspaceRetention(deps, auth, parseWith(workspacePreviewInputSchema, requireJsonBody(request, body))),
      { auth: "workspace:write" },
    );
}
