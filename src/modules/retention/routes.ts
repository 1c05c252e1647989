/**
 * @module retention/routes
 * The dry runs of retention (issue 25; docs/api.md "Retention"): `POST links/{link_uuid}/retention/preview/`
 * (scope `links:write`, the scope that saves a link's override) and `POST workspace/retention/preview/`
 * (scope `workspace:write`, the scope that saves the workspace's policy). Nothing is saved or deleted.
 */
import { Elysia } from "elysia";
import { parseBody } from "../../http/operation.ts";
import { retentionOps } from "./operations.ts";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { previewLinkRetention, previewWorkspaceRetention } from "./preview.ts";

export function retentionRoutes(deps: AppDeps) {
  return new Elysia({ name: "retention" })
    .use(authPlugin(deps))
    .post(
      retentionOps.previewLink.path,
      ({ request, body, params, auth }) =>
        previewLinkRetention(deps, auth, params.link_uuid, parseBody(retentionOps.previewLink, requireJsonBody(request, body))),
      routeOptions(retentionOps.previewLink),
    )
    .post(
      retentionOps.previewWorkspace.path,
      ({ request, body, auth }) => previewWorkspaceRetention(deps, auth, parseBody(retentionOps.previewWorkspace, requireJsonBody(request, body))),
      routeOptions(retentionOps.previewWorkspace),
    );
}
