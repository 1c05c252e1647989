/**
 * @module users/member-routes
 * `members/` and `invites/` endpoints (console contract). Reads need `members:read`, changes
 * `members:write`; the owner role needs `workspace:write` besides.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { envelope, readPage } from "../../http/pagination.ts";
import { parseWith, requireJsonBody } from "../../http/validation.ts";
import { requestMailLanguage } from "../../http/mail-language.ts";
import { createInviteSchema, patchMemberSchema } from "./model.ts";
import * as members from "./members.ts";

/** Members and invites of the caller's workspace. */
export function memberRoutes(deps: AppDeps) {
  const d: members.MembersDeps = { db: deps.db, auth: deps.auth, publicUrl: deps.config.publicUrl, mail: { config: deps.config, nudgeJobs: deps.nudgeJobs } };
  const publicUrl = deps.config.publicUrl;
  return new Elysia({ name: "members" })
    .use(authPlugin(deps))
    .get(
      "/api/v1/members/",
      async ({ request, query, auth }) => {
        const page = readPage(query);
        const { count, results } = await members.listMembers(deps.db, auth.workspaceUuid, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      },
      { auth: "members:read" },
    )
    .patch(
      "/api/v1/members/:user_uuid/",
      ({ request, body, params, auth }) => members.changeRole(d, auth, params.user_uuid, parseWith(patchMemberSchema, requireJsonBody(request, body)).role),
      // Re-checked inside the transaction; a member changing their own role is no longer in the role they started with.
      { auth: { scope: "members:write", recheckBeforeResponding: false } },
    )
    .delete(
      "/api/v1/members/:user_uuid/",
      async ({ params, auth }) => {
        await members.removeMember(d, auth, params.user_uuid);
        return { message: "Member removed." };
      },
      { auth: { scope: "members:write", recheckBeforeResponding: false } },
    )
    .post(
      "/api/v1/invites/",
      async ({ request, body, set, auth }) => {
        const invite = await members.createInvite(d, auth, parseWith(createInviteSchema, requireJsonBody(request, body)), requestMailLanguage(request));
        set.status = 201;
        return invite;
      },
      { auth: "members:write" },
    )
    .get(
      "/api/v1/invites/",
      async ({ request, query, auth }) => {
        const page = readPage(query);
        const { count, results } = await members.listInvites(deps.db, auth.workspaceUuid, page.pageSize, page.offset);
        return envelope(request.url, publicUrl, page, count, results);
      },
      { auth: "members:read" },
    )
    .delete(
      "/api/v1/invites/:invite_uuid/",
      async ({ params, auth }) => {
        await members.revokeInvite(d, auth, params.invite_uuid);
        return { message: "Invite withdrawn." };
      },
      { auth: "members:write" },
    );
}
