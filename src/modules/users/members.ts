/**
 * @module users/members
 * A workspace's members and invites (console contract): list, change a role, remove, invite by a
 * single-use URL (7 days), list and withdraw pending invites. Only a caller holding
 * `workspace:write` (an owner) grants or removes the `owner` role; the last owner stays.
 */
import type { Kysely, Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database, Executor } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import type { AuthContext, Authenticator } from "../../auth/authenticate.ts";
import { ROLES, ROLE_SCOPES, type Role } from "../../auth/roles.ts";
import { recordByAuth } from "../audit/service.ts";
import { isUuid } from "../../shared/uuid.ts";
import { emailKey, issueOneTimeToken } from "./accounts.ts";
import * as repo from "./repository.ts";
import { creatorOf, revokeKeysCreatedBy } from "../tokens/service.ts";
import { mailEnabled, queueMail } from "../mail/service.ts";
import type { Config } from "../../config.ts";
import type { z } from "zod";
import type { inviteSchema, memberSchema } from "./model.ts";

/** `mail` (optional): when it is configured, an invite is also sent by mail (DESIGN §15). */
export type MembersDeps = {
  db: Kysely<Database>;
  auth: Authenticator;
  publicUrl: string;
  mail?: { config: Pick<Config, "smtpUrl" | "mailFrom">; nudgeJobs: () => void };
};

/** A member as the API returns it: the output of `memberSchema` (model.ts). */
export type Member = z.output<typeof memberSchema>;
/** An invite as the API returns it (`url` only when created): the output of `inviteSchema`. */
export type Invite = z.output<typeof inviteSchema>;

function toMember(r: Awaited<ReturnType<typeof repo.listMembers>>[number]): Member {
  return {
    user_uuid: r.uuid,
    email: r.email,
    name: r.name,
    role: r.role,
    disabled: !!r.disabled,
    date_created: r.date_created,
    last_login_at: r.last_login_at,
  };
}

function toInvite(r: repo.OneTimeTokenRow): Invite {
  return {
    uuid: r.uuid,
    email: r.email!,
    role: r.role as Role,
    date_created: r.date_created,
    expires_at: r.expires_at,
    mail_state: r.mail_state ?? null,
    mail_error: r.mail_error ?? null,
  };
}

function assertMayTouchOwner(auth: AuthContext): void {
  if (!auth.scopes.has("workspace:write")) {
    throw new AppError("INSUFFICIENT_SCOPE", 'Only an owner (scope "workspace:write") may grant or remove the owner role.');
  }
}

/** One page of the workspace's members and their total. */
export async function listMembers(db: Kysely<Database>, workspaceUuid: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([repo.listMembers(db, workspaceUuid, limit, offset), repo.countMembers(db, workspaceUuid)]);
  return { count, results: rows.map(toMember) };
}

/** The member's membership and account, read in the caller's transaction. @throws AppError NOT_FOUND */
async function findMember(db: Executor, workspaceUuid: string, userUuid: string) {
  const membership = isUuid(userUuid) ? await repo.findMembership(db, userUuid, workspaceUuid) : undefined;
  const user = membership && (await repo.findUserByUuid(db, userUuid));
  if (!membership || !user) throw notFound("Member");
  return { membership, user };
}

/**
 * What a user granted goes with their access (docs/console.md "Roles"): the keys they created in
 * the workspace and the invites they issued there. Removed (`role` null): all of them; demoted:
 * keys holding a scope the new role lacks, and invites the new role could not issue.
 */
async function withdrawGrantsOf(trx: Transaction<Database>, auth: AuthContext, userUuid: string, role: Role | null): Promise<void> {
  const scopes = role === null ? new Set<string>() : new Set<string>(ROLE_SCOPES[role]);
  const revoked = await revokeKeysCreatedBy(trx, userUuid, auth.workspaceUuid, role === null ? undefined : scopes);
  for (const key of revoked) await recordByAuth(trx, auth, "token.revoked", { type: "token", uuid: key.uuid, label: key.name });
  const invitable = !scopes.has("members:write") ? [] : ROLES.filter((r) => r !== "owner" || scopes.has("workspace:write"));
  await repo.withdrawInvitesIssuedBy(trx, userUuid, auth.workspaceUuid, role === null ? undefined : invitable);
}

/**
 * Changes a member's role. Demoting revokes the keys they created that hold a scope the new role
 * lacks and withdraws invites it could not issue. The role checks read the member inside the
 * transaction (a concurrent change cannot slip past the owner and last-owner guards).
 * @throws AppError NOT_FOUND, INSUFFICIENT_SCOPE (owner role without workspace:write), LAST_OWNER
 */
export async function changeRole(deps: MembersDeps, auth: AuthContext, userUuid: string, role: Role): Promise<Member> {
  return deps.db.transaction().execute(async (trx) => {
    await deps.auth.assertActive(trx, auth);
    const { membership, user } = await findMember(trx, auth.workspaceUuid, userUuid);
    if (role === "owner" || membership.role === "owner") assertMayTouchOwner(auth);
    if (membership.role === "owner" && role !== "owner" && (await repo.countMembers(trx, auth.workspaceUuid, "owner")) <= 1) {
      throw new AppError("LAST_OWNER", "The workspace's last owner cannot be demoted; make someone else owner first.");
    }
    await repo.updateRole(trx, userUuid, auth.workspaceUuid, role);
    if (membership.role !== role) {
      await recordByAuth(trx, auth, "member.role_changed", { type: "user", uuid: user.uuid, label: `${user.email}: ${membership.role} → ${role}` });
      await withdrawGrantsOf(trx, auth, userUuid, role);
    }
    return toMember({ ...user, role });
  });
}

/**
 * Removes a member from the workspace; their sessions stop acting on it at once (every request
 * re-checks the membership), the keys they created there are revoked and their pending invites
 * withdrawn. The role checks read the member inside the transaction.
 * @throws AppError NOT_FOUND, INSUFFICIENT_SCOPE, LAST_OWNER
 */
export async function removeMember(deps: MembersDeps, auth: AuthContext, userUuid: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await deps.auth.assertActive(trx, auth);
    const { membership, user } = await findMember(trx, auth.workspaceUuid, userUuid);
    if (membership.role === "owner") assertMayTouchOwner(auth);
    if (membership.role === "owner" && (await repo.countMembers(trx, auth.workspaceUuid, "owner")) <= 1) {
      throw new AppError("LAST_OWNER", "The workspace's last owner cannot be removed.");
    }
    await repo.deleteMembership(trx, userUuid, auth.workspaceUuid);
    await recordByAuth(trx, auth, "member.removed", { type: "user", uuid: user.uuid, label: user.email });
    await withdrawGrantsOf(trx, auth, userUuid, null);
  });
}

/**
 * Invites an email address with a role: a single-use URL `/console/invite/?token=…`, valid 7 days.
 * With mail configured the URL is also mailed to the address (queued in the same transaction,
 * in `lang`); the answer still carries it, and `mail_state` says where the mail stands.
 * @param lang the message's language (a mail catalog language; else English)
 * @throws AppError INSUFFICIENT_SCOPE (inviting an owner without workspace:write), VALIDATION_ERROR (already a member)
 */
export async function createInvite(deps: MembersDeps, auth: AuthContext, input: { email: string; role: Role }, lang = "en"): Promise<Invite> {
  if (input.role === "owner") assertMayTouchOwner(auth);
  const existing = await repo.findUserByEmailKey(deps.db, emailKey(input.email));
  if (existing && (await repo.findMembership(deps.db, existing.uuid, auth.workspaceUuid))) {
    throw new AppError("VALIDATION_ERROR", "This email belongs to a member already.", { errors: [{ pointer: "/email", message: "Already a member." }] });
  }
  const mail = deps.mail && mailEnabled(deps.mail.config) ? deps.mail : null;
  const invite = await deps.db.transaction().execute(async (trx) => {
    const createdBy = await creatorOf(trx, auth);
    const t = await issueOneTimeToken(trx, "invite", {
      workspaceUuid: auth.workspaceUuid,
      email: input.email,
      role: input.role,
      createdByUserUuid: createdBy?.uuid ?? null,
    });
    await deps.auth.assertActive(trx, auth);
    await recordByAuth(trx, auth, "member.invited", { type: "invite", uuid: t.uuid, label: `${input.email} as ${input.role}` });
    const url = `${deps.publicUrl}/console/invite/?token=${t.token}`;
    if (mail) {
      const values = { workspace: auth.workspace.name, role: input.role, expires: t.expires_at };
      await queueMail(trx, { kind: "invite", to: input.email, lang, url, values, token_uuid: t.uuid });
    }
    return {
      uuid: t.uuid,
      email: input.email,
      role: input.role,
      url,
      date_created: t.date_created,
      expires_at: t.expires_at,
      mail_state: mail ? ("queued" as const) : null,
      mail_error: null,
    };
  });
  mail?.nudgeJobs();
  return invite;
}

/** One page of pending invites (their URLs are not shown again) and their total. */
export async function listInvites(db: Kysely<Database>, workspaceUuid: string, limit: number, offset: number) {
  const now = nowIso();
  const [rows, count] = await Promise.all([repo.listPendingInvites(db, workspaceUuid, now, limit, offset), repo.countPendingInvites(db, workspaceUuid, now)]);
  return { count, results: rows.map(toInvite) };
}

/**
 * Withdraws a pending invite; its URL stops working. Re-checks the caller inside the transaction.
 * @throws AppError NOT_FOUND, UNAUTHENTICATED (the caller's key or session ended meanwhile)
 */
export async function revokeInvite(deps: MembersDeps, auth: AuthContext, uuid: string): Promise<void> {
  if (!isUuid(uuid)) throw notFound("Invite");
  await deps.db.transaction().execute(async (trx) => {
    await deps.auth.assertActive(trx, auth);
    if (!(await repo.deleteInvite(trx, auth.workspaceUuid, uuid))) throw notFound("Invite");
  });
}
