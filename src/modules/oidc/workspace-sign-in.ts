/**
 * @module oidc/workspace-sign-in
 * Signing in through a workspace's own provider (issue 28; docs/decisions/oidc.md "A workspace's
 * own provider"). That provider is the workspace owner's word, not the operator's, so it vouches
 * for that workspace alone:
 * - only verified emails of the workspace's allowed domains (required there) sign in;
 * - people are found by `(issuer, sub)`; an email that already has an account is bound to this
 *   identity only when the account is a member or invitee of this workspace (and not bound to
 *   another subject of the same issuer) — else OIDC_ACCOUNT_NOT_LINKABLE;
 * - membership, invites, just-in-time joining and the role mapping touch this workspace only
 *   (never another membership; the mapping never gives or takes `owner`);
 * - the session is limited to this workspace (`console_sessions.limited_to_workspace_uuid`);
 * - two-factor applies as after a password (the ticket carries the limit to the code step).
 */
import type { Kysely } from "kysely";
import { isoAfter, nowIso } from "../../clock.ts";
import type { Role } from "../../auth/roles.ts";
import { SESSION_IDLE_S } from "../../auth/sessions.ts";
import type { Database } from "../../db/schema.ts";
import { AppError, type ErrorCode } from "../../errors.ts";
import { recordAudit, type AuditActor } from "../audit/service.ts";
import * as accounts from "../users/accounts.ts";
import * as users from "../users/repository.ts";
import type { SecondFactorGate } from "../users/service.ts";
import * as repo from "./repository.ts";
import { applyRole, type OidcSession } from "./service.ts";
import { mappedRole } from "./settings.ts";
import type { WorkspaceProvider } from "./workspace-provider.ts";

/**
 * Signs a person in to one workspace from its provider's verified claims.
 * @param previousIdHash the session the browser held before, ended now (no fixation)
 * @throws AppError OIDC_EMAIL_UNVERIFIED, OIDC_DOMAIN_NOT_ALLOWED, OIDC_FAILED (no `sub`),
 *   OIDC_ACCOUNT_NOT_LINKABLE, OIDC_ACCOUNT_DISABLED, OIDC_NO_ROLE, OIDC_NOT_A_MEMBER — each
 *   audited as `login.failed` in this workspace; TWO_FACTOR_REQUIRED with a ticket
 */
export async function signInToWorkspace(
  db: Kysely<Database>,
  provider: WorkspaceProvider,
  claims: Record<string, unknown>,
  clientAddress: string | null,
  previousIdHash: string | null,
  secondFactor?: SecondFactorGate,
): Promise<OidcSession> {
  const { settings } = provider;
  const ws = provider.workspace.uuid;
  const actorName = `single sign-on (${settings.providerName})`;
  const email = typeof claims.email === "string" ? claims.email.trim() : "";
  const refuse = async (code: ErrorCode, message: string, user?: users.UserRow) => {
    // Recorded in this workspace only: the other workspaces of the account are none of its provider's business.
    const target = { type: "user", uuid: user?.uuid ?? null, label: `${email.slice(0, 300) || "(no email)"} (workspace single sign-on: ${code})` };
    const actor: AuditActor = user ? { type: "user", uuid: user.uuid, name: user.name } : { type: "system", uuid: null, name: actorName };
    await recordAudit(db, { workspaceUuid: ws, actor, action: "login.failed", target, clientAddress });
    return new AppError(code, message);
  };
  if (!email || !email.includes("@") || email.length > 320) throw await refuse("OIDC_EMAIL_UNVERIFIED", "The identity provider sent no usable email address.");
  if (claims.email_verified !== true && claims.email_verified !== "true") {
    throw await refuse("OIDC_EMAIL_UNVERIFIED", "The identity provider has not verified this email address.");
  }
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  if (!settings.allowedDomains.includes(domain)) throw await refuse("OIDC_DOMAIN_NOT_ALLOWED", `Accounts of ${domain} may not sign in to this workspace.`);
  const subject = typeof claims.sub === "string" ? claims.sub : "";
  if (!subject || subject.length > 255) throw await refuse("OIDC_FAILED", "The identity provider sent no usable subject (sub).");

  const now = nowIso();
  const invites = (await repo.pendingInvitesFor(db, email.toLowerCase(), now)).filter(
    (i) => i.workspace_uuid === ws && accounts.emailKey(i.email ?? "") === accounts.emailKey(email),
  );
  const identity = await repo.findIdentity(db, settings.issuer, subject);
  const user = identity ? await users.findUserByUuid(db, identity.user_uuid) : await users.findUserByEmailKey(db, accounts.emailKey(email));
  const bind = !identity;
  if (bind && user) {
    // An account this provider has not signed in before: only this workspace's own people are
    // linked by email, and only when that account has no other identity at this issuer.
    const member = await users.findMembership(db, user.uuid, ws);
    if ((!member && invites.length === 0) || (await repo.findIdentityOfUser(db, settings.issuer, user.uuid))) {
      throw await refuse(
        "OIDC_ACCOUNT_NOT_LINKABLE",
        "An Earshot account with this email exists and cannot be signed in to through this workspace's provider.",
      );
    }
  }
  if (user?.disabled) throw await refuse("OIDC_ACCOUNT_DISABLED", "This account is disabled.", user);
  const role = settings.roleClaim ? mappedRole(settings, claims[settings.roleClaim]) : null;
  if (settings.roleClaim && !role)
    throw await refuse("OIDC_NO_ROLE", "Your account at the identity provider has no group that gives access to this workspace.", user);
  const membership = user ? await users.findMembership(db, user.uuid, ws) : undefined;
  if (!membership && invites.length === 0 && !settings.autoJoin) {
    throw await refuse("OIDC_NOT_A_MEMBER", "You are not a member of this workspace. Ask its owner or an admin for an invite.", user);
  }
  const needsCode = !!user && !!secondFactor && (await secondFactor.isRequired(user.uuid));

  const started = await db.transaction().execute(async (trx) => {
    if (previousIdHash) await users.deleteSession(trx, previousIdHash);
    await users.deleteExpiredSessions(trx, nowIso(), isoAfter(-SESSION_IDLE_S));
    const name = (typeof claims.name === "string" && claims.name.trim().slice(0, 200)) || email.slice(0, email.indexOf("@"));
    const account = user ?? (await accounts.insertNewUser(trx, { email, name, passwordHash: null }));
    const actor: AuditActor = { type: "user", uuid: account.uuid, name: account.name };
    const target = { type: "user", uuid: account.uuid, label: account.email };
    if (bind) {
      await repo.insertIdentity(trx, { issuer: settings.issuer, subject, user_uuid: account.uuid, date_created: nowIso() });
      await recordAudit(trx, {
        workspaceUuid: ws,
        actor,
        action: "sso.identity_linked",
        target: { ...target, label: `${account.email} (${settings.issuer})` },
        clientAddress,
      });
    }
    let current = membership?.role ?? null;
    for (const invite of invites) {
      // Used once: a concurrent acceptance of the same invite wins and this one is skipped.
      if (current || !(await users.useOneTimeToken(trx, invite.uuid, nowIso()))) continue;
      await users.insertMembership(trx, { user_uuid: account.uuid, workspace_uuid: ws, role: invite.role as Role, date_created: nowIso() });
      await recordAudit(trx, { workspaceUuid: ws, actor, action: "member.joined", target, clientAddress });
      current = invite.role as Role;
    }
    if (!current) {
      if (!settings.autoJoin) throw new AppError("OIDC_NOT_A_MEMBER", "You are not a member of this workspace. Ask its owner or an admin for an invite.");
      current = role ?? settings.defaultRole;
      await users.insertMembership(trx, { user_uuid: account.uuid, workspace_uuid: ws, role: current, date_created: nowIso() });
      await recordAudit(trx, { workspaceUuid: ws, actor, action: "member.joined", target, clientAddress });
    } else if (role) {
      await applyRole(trx, account, ws, current, role, clientAddress);
    }
    // The session, `last_login_at` and `login.succeeded` wait for the code (two-factor/sign-in.ts).
    if (needsCode) return null;
    await users.updateUser(trx, account.uuid, { last_login_at: nowIso() });
    const s = await accounts.startSession(trx, account.uuid, ws, ws);
    await recordAudit(trx, { workspaceUuid: ws, actor, action: "login.succeeded", target: null, clientAddress });
    return s;
  });
  if (!started) return secondFactor!.challenge(user!, ws);
  return started;
}
