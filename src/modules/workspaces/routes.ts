/**
 * @module workspaces/routes
 * `GET workspace/`: the key's workspace with limits and usage (DESIGN §3); `PATCH workspace/`
 * changes its name, host, plan and limits (owners: scope `workspace:write`).
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { parseBody } from "../../http/operation.ts";
import { workspaceOps } from "./operations.ts";
import { getWorkspaceView, updateWorkspace } from "./service.ts";

/** `GET workspace/` for any valid key (DESIGN §3); `PATCH workspace/` with `workspace:write`. */
export function workspaceRoutes(deps: AppDeps) {
  return new Elysia({ name: "workspaces" })
    .use(authPlugin(deps))
    .get(
      workspaceOps.get.path,
      ({ auth }) => getWorkspaceView(deps.db, deps.config.publicUrl, auth.workspaceUuid, deps.auth.usage),
      routeOptions(workspaceOps.get),
    )
    .patch(
      workspaceOps.update.path,
      async ({ request, body, auth }) => {
        const input = parseBody(workspaceOps.update, requireJsonBody(request, body));
        await updateWorkspace(
          deps.db,
          auth.workspaceUuid,
          {
            name: input.name,
            host: input.host,
            plan: input.plan,
            linksLimit: input.limits?.links,
            requestsPerMinute: input.limits?.requests_per_minute,
            retention: input.retention,
            embedOrigins: input.embed?.allowed_origins,
          },
          { publicUrl: deps.config.publicUrl, recheck: (trx) => deps.auth.assertActive(trx, auth) },
        );
        return getWorkspaceView(deps.db, deps.config.publicUrl, auth.workspaceUuid, deps.auth.usage);
      },
      routeOptions(workspaceOps.update),
    );
}
