/**
 * @module workspaces/routes
 * `GET workspace/`: the key's workspace with limits and usage (DESIGN §3); `PATCH workspace/`
 * changes its name, host, plan and limits (owners: scope `workspace:write`).
 */
import { Elysia } from "elysia";
import { authed, type AppDeps } from "../../http/context.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { patchWorkspaceSchema } from "./model.ts";
import { getWorkspaceView, updateWorkspace } from "./service.ts";

/** `GET workspace/` for any valid key (DESIGN §3); `PATCH workspace/` with `workspace:write`. */
export function workspaceRoutes(deps: AppDeps) {
  return new Elysia({ name: "workspaces" })
    .get(
      "/api/v1/workspace/",
      authed(deps, null, (_ctx, auth) => getWorkspaceView(deps.db, deps.config.publicUrl, auth.workspaceUuid, deps.auth.usage)),
    )
    .patch(
      "/api/v1/workspace/",
      authed(deps, "workspace:write", async ({ request, body }, auth) => {
        const input = parseWith(patchWorkspaceSchema, requireJsonBody(request, body));
        await updateWorkspace(deps.db, auth.workspaceUuid, {
          name: input.name,
          host: input.host,
          plan: input.plan,
          linksLimit: input.limits?.links,
          requestsPerMinute: input.limits?.requests_per_minute,
        }, { publicUrl: deps.config.publicUrl, recheck: (trx) => deps.auth.assertActive(trx, auth) });
        return getWorkspaceView(deps.db, deps.config.publicUrl, auth.workspaceUuid, deps.auth.usage);
      }),
    );
}
