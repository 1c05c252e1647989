/**
 * @module users/member-routes
 * `members/` and `invites/` endpoints (console contract). Reads need `members:read`, changes
 * `members:write`; the owner role needs `workspace:write` besides.
 */
import { Elysia } from "elysia";
import { authed, type AppDeps } from "../../http/context.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { createInviteSchema, patchMemberSchema } from "./model.ts";
import * as members from "./members.ts";

/** Members and invites of the caller's workspace. */
export function memberRoutes(deps: AppDeps) {
  const d: members.MembersDeps = { db: deps.db, auth: deps.auth, publicUrl: deps.config.publicUrl };
  const publicUrl = deps.config.publicUrl;
  return new Elysia({ name: "members" })
    .get(
      "/api/v1/members/",
      authed(deps, "members:read", async ({ request, query }, auth) => {
        const page = readPage(query);
        const { count, results } = await members.listMembers(deps.db, auth.workspaceUuid, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      }),
    )
    .patch(
      "/api/v1/members/:user_uuid/",
      authed(deps, "members:write", ({ request, body, params }, auth) =>
        members.changeRole(d, auth, params.user_uuid!, parseWith(patchMemberSchema, requireJsonBody(request, body)).role),
      // Re-checked inside the transaction; a member changing their own role is no longer in the role they started with.
      { recheckBeforeResponding: false }),
    )
    .delete(
      "/api/v1/members/:user_uuid/",
      authed(deps, "members:write", async ({ params }, auth) => {
        await members.removeMember(d, auth, params.user_uuid!);
        return { message: "Member removed." };
      }, { recheckBeforeResponding: false }),
    )
    .post(
      "/api/v1/invites/",
      authed(deps, "members:write", async ({ request, body, set }, auth) => {
        const invite = await members.createInvite(d, auth, parseWith(createInviteSchema, requireJsonBody(request, body)));
        set.status = 201;
        return invite;
      }),
    )
    .get(
      "/api/v1/invites/",
      authed(deps, "members:read", async ({ request, query }, auth) => {
        const page = readPage(query);
        const { count, results } = await members.listInvites(deps.db, auth.workspaceUuid, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      }),
    )
    .delete(
      "/api/v1/invites/:invite_uuid/",
      authed(deps, "members:write", async ({ params }, auth) => {
        await members.revokeInvite(d, auth, params.invite_uuid!);
        return { message: "Invite withdrawn." };
      }),
    );
}
