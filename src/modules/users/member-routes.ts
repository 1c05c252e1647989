/**
 * @module users/member-routes
 * `members/` and `invites/` endpoints (console contract). Reads need `members:read`, changes
 * `members:write`; the owner role needs `workspace:write` besides.
 */
import { Elysia } from "elysia";
import { parseBody } from "../../http/operation.ts";
import { accountOps } from "./operations.ts";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { requireJsonBody } from "../../http/validation.ts";
import { requestMailLanguage } from "../../http/mail-language.ts";
import * as members from "./members.ts";

/** Members and invites of the caller's workspace. */
export function memberRoutes(deps: AppDeps) {
  const d: members.MembersDeps = { db: deps.db, auth: deps.auth, publicUrl: deps.config.publicUrl, mail: { config: deps.config, nudgeJobs: deps.nudgeJobs } };
  const publicUrl = deps.config.publicUrl;
  return new Elysia({ name: "members" })
    .use(authPlugin(deps))
    .get(
      accountOps.listMembers.path,
      async ({ request, query, auth }) => {
        const page = readPage(query);
        const { count, results } = await members.listMembers(deps.db, auth.workspaceUuid, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      },
      routeOptions(accountOps.listMembers),
    )
    .patch(
      accountOps.updateMember.path,
      ({ request, body, params, auth }) =>
        members.changeRole(d, auth, params.user_uuid, parseBody(accountOps.updateMember, requireJsonBody(request, body)).role),
      routeOptions(accountOps.updateMember),
    )
    .delete(
      accountOps.removeMember.path,
      async ({ params, auth }) => {
        await members.removeMember(d, auth, params.user_uuid);
        return { message: "Member removed." };
      },
      routeOptions(accountOps.removeMember),
    )
    .post(
      accountOps.createInvite.path,
      async ({ request, body, set, auth }) => {
        const invite = await members.createInvite(d, auth, parseBody(accountOps.createInvite, requireJsonBody(request, body)), requestMailLanguage(request));
        set.status = 201;
        return invite;
      },
      routeOptions(accountOps.createInvite),
    )
    .get(
      accountOps.listInvites.path,
      async ({ request, query, auth }) => {
        const page = readPage(query);
        const { count, results } = await members.listInvites(deps.db, auth.workspaceUuid, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      },
      routeOptions(accountOps.listInvites),
    )
    .delete(
      accountOps.revokeInvite.path,
      async ({ params, auth }) => {
        await members.revokeInvite(d, auth, params.invite_uuid);
        return { message: "Invite withdrawn." };
      },
      routeOptions(accountOps.revokeInvite),
    );
}
