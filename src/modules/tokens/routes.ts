/**
 * @module tokens/routes
 * `tokens/` endpoints (spec: API tokens; DESIGN §5).
 */
import { Elysia } from "elysia";
import { authed, type AppDeps } from "../../http/context.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { isUuid } from "../../shared/uuid.ts";
import { notFound } from "../../errors.ts";
import { createTokenSchema } from "./model.ts";
import * as service from "./service.ts";

/** `tokens/` create, list and revoke (DESIGN §5). */
export function tokenRoutes(deps: AppDeps) {
  return new Elysia({ name: "tokens" })
    .post(
      "/api/v1/tokens/",
      authed(deps, "tokens:write", async ({ request, body, set }, auth) => {
        const input = parseWith(createTokenSchema, requireJsonBody(request, body));
        const scopes = service.scopesForNewToken(input.scopes, auth.scopes);
        const created = await deps.db.transaction().execute(async (trx) => {
          const t = await service.createToken(trx, auth.workspaceUuid, { name: input.name, scopes, createdBy: await service.creatorOf(trx, auth) });
          await deps.auth.assertActive(trx, auth);
          return t;
        });
        set.status = 201;
        return created;
      }),
    )
    .get(
      "/api/v1/tokens/",
      authed(deps, "tokens:read", async ({ request, query }, auth) => {
        const page = readPage(query);
        const { count, results } = await service.listTokens(deps.db, auth.workspaceUuid, page.pageSize, page.offset, deps.auth.usage);
        return envelope(request.url, deps.config.publicUrl, page, count, results);
      }),
    )
    .delete(
      "/api/v1/tokens/:token_uuid/",
      authed(deps, "tokens:write", async ({ params }, auth) => {
        if (!isUuid(params.token_uuid!)) throw notFound("Token");
        await service.revokeToken(deps.db, auth.workspaceUuid, params.token_uuid!);
        // Revoking the key in use is allowed; the answer confirms it even though the key is now dead.
        return { message: "Token revoked." };
      }, { recheckBeforeResponding: false }),
    );
}
