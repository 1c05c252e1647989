/**
 * @module workspaces/routes
 * `GET workspace/`: the key's workspace with limits and usage (DESIGN §3).
 */
import { Elysia } from "elysia";
import { authed, type AppDeps } from "../../http/context.ts";
import { getWorkspaceView } from "./service.ts";

/** `GET workspace/` for any valid key (DESIGN §3). */
export function workspaceRoutes(deps: AppDeps) {
  return new Elysia({ name: "workspaces" }).get(
    "/api/v1/workspace/",
    authed(deps, null, (_ctx, auth) => getWorkspaceView(deps.db, deps.config.publicUrl, auth.workspaceUuid)),
  );
}
