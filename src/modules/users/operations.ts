/**
 * @module users/operations
 * OpenAPI catalogue entries of the console's account endpoints (`auth/`, `members/`, `invites/`,
 * `audit/`; DESIGN §10, console contract). `auth/` endpoints take the session cookie, not a key.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { envelopeOf, operation, type Operation } from "../../http/operation.ts";
import { pageQuerySchema } from "../../http/pagination.ts";
import {
  acceptInviteSchema,
  changePasswordSchema,
  createInviteSchema,
  invitePublicSchema,
  inviteSchema,
  loginSchema,
  memberSchema,
  passwordResetSchema,
  patchMeSchema,
  patchMemberSchema,
  sessionSchema,
  setupSchema,
  switchWorkspaceSchema,
} from "./model.ts";

const message = lazySchema(() => z.object({ message: z.string() }));
const BODY = ["INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
const OPEN = ["HTTPS_REQUIRED", "CSRF_FAILED", ...BODY];
const SESSION = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "CSRF_FAILED"];
const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "CSRF_FAILED", "RATE_LIMITED", "INSUFFICIENT_SCOPE"];
const tag = "console accounts";
const session = { status: 200, schema: sessionSchema, description: "The session (Set-Cookie: earshot_session)" };

/** The console account endpoints, one declaration each: route, document entry and scope. */
export const accountOps = {
  login: operation({
    method: "post",
    path: "/api/v1/auth/login/",
    summary: "Sign in with email and password (sets the session cookie)",
    tag,
    scope: "public",
    body: loginSchema,
    success: session,
    errors: [...OPEN, "INVALID_CREDENTIALS", "RATE_LIMITED", "TWO_FACTOR_REQUIRED", "PASSWORD_SIGNIN_DISABLED"],
  }),
  logout: operation({
    method: "post",
    path: "/api/v1/auth/logout/",
    summary: "Sign out (ends the session, clears the cookie)",
    tag,
    scope: "public",
    success: { status: 200, schema: message, description: "Signed out" },
    errors: SESSION,
  }),
  session: operation({
    method: "get",
    path: "/api/v1/auth/session/",
    summary: "The current session: user, memberships, role, scopes, CSRF token",
    tag,
    scope: "public",
    success: session,
    errors: SESSION,
  }),
  switchWorkspace: operation({
    method: "post",
    path: "/api/v1/auth/session/workspace/",
    summary: "Switch the session to another of the user's workspaces",
    tag,
    scope: "public",
    body: switchWorkspaceSchema,
    success: session,
    errors: [...SESSION, ...BODY, "NOT_FOUND"],
  }),
  setup: operation({
    method: "post",
    path: "/api/v1/auth/setup/",
    summary: "First start: create the owner account with the one-time setup token",
    tag,
    scope: "public",
    body: setupSchema,
    success: { ...session, status: 201 },
    errors: [...OPEN, "NOT_FOUND"],
  }),
  invite: operation({
    method: "get",
    path: "/api/v1/auth/invites/:token/",
    summary: "What an invite offers (email, workspace, role, expiry)",
    tag,
    scope: "public",
    success: { status: 200, schema: invitePublicSchema, description: "Invite" },
    errors: ["NOT_FOUND"],
  }),
  acceptInvite: operation({
    method: "post",
    path: "/api/v1/auth/invites/:token/accept/",
    summary: "Accept an invite: create the account, or join with an existing one's password",
    tag,
    scope: "public",
    body: acceptInviteSchema,
    success: { ...session, status: 201 },
    errors: [...OPEN, "NOT_FOUND", "INVALID_CREDENTIALS", "RATE_LIMITED", "TWO_FACTOR_REQUIRED", "PASSWORD_SIGNIN_DISABLED"],
  }),
  passwordReset: operation({
    method: "post",
    path: "/api/v1/auth/password-reset/",
    summary: "Set a new password with a reset token (ends every session of the user)",
    tag,
    scope: "public",
    body: passwordResetSchema,
    success: { status: 200, schema: message, description: "Password set" },
    errors: [...OPEN, "NOT_FOUND"],
  }),
  updateMe: operation({
    method: "patch",
    path: "/api/v1/auth/me/",
    summary: "Rename the signed-in user",
    tag,
    scope: "public",
    body: patchMeSchema,
    success: session,
    errors: [...SESSION, ...BODY],
  }),
  changePassword: operation({
    method: "post",
    path: "/api/v1/auth/me/password/",
    summary: "Change the signed-in user's password (ends their other sessions)",
    tag,
    scope: "public",
    body: changePasswordSchema,
    success: { status: 200, schema: message, description: "Password changed" },
    errors: [...SESSION, ...BODY, "RATE_LIMITED"],
  }),
  listMembers: operation({
    method: "get",
    path: "/api/v1/members/",
    summary: "List the workspace's members",
    tag,
    scope: "members:read",
    query: pageQuerySchema,
    success: { status: 200, schema: envelopeOf(memberSchema), description: "Page of members" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE"],
  }),
  updateMember: operation({
    method: "patch",
    path: "/api/v1/members/:user_uuid/",
    summary: "Change a member's role (the owner role needs workspace:write)",
    tag,
    scope: "members:write",
    // Re-checked inside the transaction; a member changing their own role is no longer in the role they started with.
    recheck: false,
    body: patchMemberSchema,
    success: { status: 200, schema: memberSchema, description: "Member" },
    errors: [...AUTH, ...BODY, "NOT_FOUND", "LAST_OWNER"],
  }),
  removeMember: operation({
    method: "delete",
    path: "/api/v1/members/:user_uuid/",
    summary: "Remove a member from the workspace (their sessions stop acting on it at once)",
    tag,
    scope: "members:write",
    // Re-checked inside the transaction; a member changing their own role is no longer in the role they started with.
    recheck: false,
    success: { status: 200, schema: message, description: "Removed" },
    errors: [...AUTH, "NOT_FOUND", "LAST_OWNER"],
  }),
  createInvite: operation({
    method: "post",
    path: "/api/v1/invites/",
    summary: "Invite an email with a role (single-use URL, 7 days)",
    tag,
    scope: "members:write",
    body: createInviteSchema,
    success: { status: 201, schema: inviteSchema, description: "Invite with its URL (shown once)" },
    errors: [...AUTH, ...BODY],
  }),
  listInvites: operation({
    method: "get",
    path: "/api/v1/invites/",
    summary: "List pending invites",
    tag,
    scope: "members:read",
    query: pageQuerySchema,
    success: { status: 200, schema: envelopeOf(inviteSchema), description: "Page of invites" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE"],
  }),
  revokeInvite: operation({
    method: "delete",
    path: "/api/v1/invites/:invite_uuid/",
    summary: "Withdraw a pending invite",
    tag,
    scope: "members:write",
    success: { status: 200, schema: message, description: "Withdrawn" },
    errors: [...AUTH, "NOT_FOUND"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const accountOperations: Operation[] = Object.values(accountOps);
