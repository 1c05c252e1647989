/**
 * @module oidc/workspace-routes
 * A workspace's own single sign-on settings (issue 28; docs/console.md "A workspace's own single
 * sign-on"): `GET`, `PUT` and `DELETE workspace/sso/` and `POST workspace/sso/check/`, for owners (`workspace:write`), audited as
 * `sso.updated` / `sso.removed` by their declarations. Thin: parse, call one service function.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { parseBody } from "../../http/operation.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { oidcOps } from "./operations.ts";
import { checkWorkspaceSso, deleteWorkspaceSso, getWorkspaceSso, putWorkspaceSso, type WorkspaceSsoDeps } from "./workspace-provider.ts";

/** The workspace single sign-on settings routes. */
export function workspaceSsoRoutes(deps: AppDeps) {
  const d: WorkspaceSsoDeps = { db: deps.db, clock: deps.clock, publicUrl: deps.config.publicUrl, allowHosts: deps.config.webhookAllowHosts };
  return new Elysia({ name: "workspace-sso" })
    .use(authPlugin(deps))
    .get(oidcOps.getWorkspaceSso.path, ({ auth }) => getWorkspaceSso(d, auth.workspaceUuid), routeOptions(oidcOps.getWorkspaceSso))
    .put(
      oidcOps.putWorkspaceSso.path,
      ({ request, body, auth }) => putWorkspaceSso(d, auth.workspaceUuid, parseBody(oidcOps.putWorkspaceSso, requireJsonBody(request, body))),
      routeOptions(oidcOps.putWorkspaceSso),
    )
    .post(oidcOps.checkWorkspaceSso.path, ({ auth }) => checkWorkspaceSso(d, auth.workspaceUuid), routeOptions(oidcOps.checkWorkspaceSso))
    .delete(
      oidcOps.deleteWorkspaceSso.path,
      async ({ auth }) => {
        await deleteWorkspaceSso(d, auth.workspaceUuid);
        return { message: "Single sign-on of this workspace removed; the sessions it started have ended." };
      },
      routeOptions(oidcOps.deleteWorkspaceSso),
    );
}
