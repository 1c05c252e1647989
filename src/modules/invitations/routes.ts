/**
 * @module invitations/routes
 * `links/{link_uuid}/invitations/` (issue 25; DESIGN §13; docs/api.md "Invitations"): mint, list,
 * revoke. Thin: parse, call one service function. `links:write` mints and revokes, `links:read` lists.
 */
import { Elysia } from "elysia";
import { parseBody } from "../../http/operation.ts";
import { invitationOps } from "./operations.ts";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { listInvitationsQuerySchema } from "./model.ts";
import * as service from "./service.ts";

/** The invitation routes of a link. */
export function invitationRoutes(deps: AppDeps) {
  const d: service.InvitationDeps = { db: deps.db, auth: deps.auth, publicUrl: deps.config.publicUrl, signingSecret: deps.signingSecret };
  return new Elysia({ name: "invitations" })
    .use(authPlugin(deps))
    .post(
      invitationOps.create.path,
      async ({ request, body, params, set, auth }) => {
        const created = await service.createInvitations(d, auth, params.link_uuid, parseBody(invitationOps.create, requireJsonBody(request, body)));
        set.status = 201;
        return created;
      },
      routeOptions(invitationOps.create),
    )
    .get(
      invitationOps.list.path,
      async ({ request, query, params, auth }) => {
        const page = readPage(query);
        const q = parseWith(listInvitationsQuerySchema, { state: query.state }, "query");
        const { count, results } = await service.listInvitations(d, auth, params.link_uuid, q.state, page.pageSize, page.offset);
        return envelope(request.url, deps.config.publicUrl, page, count, results);
      },
      routeOptions(invitationOps.list),
    )
    .delete(
      invitationOps.revoke.path,
      async ({ params, auth }) => {
        await service.revokeInvitation(d, auth, params.link_uuid, params.invitation_uuid);
        return { message: "Invitation revoked." };
      },
      routeOptions(invitationOps.revoke),
    );
}
