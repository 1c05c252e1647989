/**
 * @module tokens/routes
 * `tokens/` endpoints (spec: API tokens; DESIGN §5).
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { parseBody } from "../../http/operation.ts";
import { tokenOps } from "./operations.ts";
import * as service from "./service.ts";

/** `tokens/` create, list and revoke (DESIGN §5). */
export function tokenRoutes(deps: AppDeps) {
  return new Elysia({ name: "tokens" })
    .use(authPlugin(deps))
    .post(
      tokenOps.create.path,
      async ({ request, body, set, auth }) => {
        const created = await service.issueToken(deps.db, deps.auth, auth, parseBody(tokenOps.create, requireJsonBody(request, body)));
        set.status = 201;
        return created;
      },
      routeOptions(tokenOps.create),
    )
    .get(
      tokenOps.list.path,
      async ({ request, query, auth }) => {
        const page = readPage(query);
        const { count, results } = await service.listTokens(deps.db, auth.workspaceUuid, page.pageSize, page.offset, deps.auth.usage);
        return envelope(request.url, deps.config.publicUrl, page, count, results);
      },
      routeOptions(tokenOps.list),
    )
    .delete(
      tokenOps.revoke.path,
      async ({ params, auth }) => {
        await service.revokeToken(deps.db, auth.workspaceUuid, params.token_uuid);
        // Revoking the key in use is allowed; the answer confirms it even though the key is now dead.
        return { message: "Token revoked." };
      },
      routeOptions(tokenOps.revoke),
    );
}
