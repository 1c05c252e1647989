/**
 * @module oidc/service
 * Single sign-on after the protocol checks (DESIGN §15): the verified claims become an Earshot
 * session exactly as a password sign-in does (same session row, cookie, `last_login_at` and
 * `login.succeeded` audit entry). Accounts are matched by their verified email (see
 * docs/decisions/oidc.md); membership is just-in-time or invite-only (a pending invite to the
 * email is accepted by the sign-in); the role claim mapping is applied at every sign-in.
 */
import type { Kysely } from "kysely";
import { isoAfter, nowIso } from "../../clock.ts";
import { ROLE_SCOPES, ROLES, type Role } from "../../auth/roles.ts";
import { SESSION_IDLE_S } from "../../auth/sessions.ts";
import type { Database, Executor } from "../../db/schema.ts";
import { AppError, type ErrorCode } from "../../errors.ts";
import { recordAudit, type AuditActor } from "../audit/service.ts";
import { revokeKeysCreatedBy } from "../tokens/service.ts";
import * as accounts from "../users/accounts.ts";
import * as users from "../users/repository.ts";
import type { SecondFactorGate } from "../users/service.ts";
import { findWorkspaceBySlug, listWorkspaces } from "../workspaces/repository.ts";
import { pendingInvitesFor } from "./repository.ts";
import { mappedRole, type OidcSettings } from "./settings.ts";

/** A started session: the cookie value and the session's id hash. */
export type OidcSession = { cookie: string; idHash: string };

const SYSTEM: AuditActor = { type: "system", uuid: null, name: "single sign-on" };

/**
 * Signs a person in from the ID token's (and userinfo's) verified claims.
 * @param previousIdHash the session the browser held before, ended now (no fixation)
 * @param secondFactor when the account has two-factor on, no session starts: the account is
 *   brought up to date (invites, role mapping) and the gate throws TWO_FACTOR_REQUIRED with a
 *   ticket, which the code step turns into the session exactly as after a password (issue 28)
 * @throws AppError TWO_FACTOR_REQUIRED, OIDC_EMAIL_UNVERIFIED, OIDC_DOMAIN_NOT_ALLOWED, OIDC_NO_ROLE, OIDC_NOT_A_MEMBER,
 *   OIDC_ACCOUNT_DISABLED — each audited as `login.failed`
 */
export async function signInWithClaims(
  db: Kysely<Database>,
  settings: OidcSettings,
  claims: Record<string, unknown>,
  clientAddress: string | null,
  previousIdHash: string | null,
  secondFactor?: SecondFactorGate,
): Promise<OidcSession> {
  const email = typeof claims.email === "string" ? claims.email.trim() : "";
  const refuse = async (code: ErrorCode, message: string, user?: users.UserRow) => {
    const memberships = user ? await users.listUserMemberships(db, user.uuid) : [];
    const target = { type: "user", uuid: user?.uuid ?? null, label: `${email.slice(0, 300) || "(no email)"} (single sign-on: ${code})` };
    const actor: AuditActor = user ? { type: "user", uuid: user.uuid, name: user.name } : SYSTEM;
    if (memberships.length === 0) await recordAudit(db, { workspaceUuid: null, actor, action: "login.failed", target, clientAddress });
    for (const m of memberships) await recordAudit(db, { workspaceUuid: m.workspace_uuid, actor, action: "login.failed", target, clientAddress });
    return new AppError(code, message);
  };
  // Only an address the provider has verified may stand for an Earshot account.
  if (!email || !email.includes("@") || email.length > 320) throw await refuse("OIDC_EMAIL_UNVERIFIED", "The identity provider sent no usable email address.");
  if (claims.email_verified !== true && claims.email_verified !== "true") {
    throw await refuse("OIDC_EMAIL_UNVERIFIED", "The identity provider has not verified this email address.");
  }
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  if (settings.allowedDomains.length > 0 && !settings.allowedDomains.includes(domain)) {
    throw await refuse("OIDC_DOMAIN_NOT_ALLOWED", `Accounts of ${domain} may not sign in here.`);
  }
  const user = await users.findUserByEmailKey(db, accounts.emailKey(email));
  if (user?.disabled) throw await refuse("OIDC_ACCOUNT_DISABLED", "This account is disabled.", user);
  const role = settings.roleClaim ? mappedRole(settings, claims[settings.roleClaim]) : null;
  if (settings.roleClaim && !role) throw await refuse("OIDC_NO_ROLE", "Your account at the identity provider has no group that gives access to Earshot.", user);
  const memberships = user ? await users.listUserMemberships(db, user.uuid) : [];
  // A pending invite is accepted by signing in through the provider (no password to choose).
  const invites = (await pendingInvitesFor(db, email.toLowerCase(), nowIso())).filter((i) => accounts.emailKey(i.email ?? "") === accounts.emailKey(email));
  const welcome = memberships.length === 0 && invites.length === 0;
  if (welcome && !settings.autoJoin) {
    throw await refuse("OIDC_NOT_A_MEMBER", "You have no Earshot account yet. Ask an owner or admin for an invite.", user);
  }
  const home = welcome ? await defaultWorkspaceUuid(db) : null;
  if (welcome && !home) throw await refuse("OIDC_NOT_A_MEMBER", "This Earshot has no workspace to join yet.", user);
  // Only an existing account can have a second factor (a just-created one has none yet).
  const needsCode = !!user && !!secondFactor && (await secondFactor.isRequired(user.uuid));

  const started = await db.transaction().execute(async (trx) => {
    if (previousIdHash) await users.deleteSession(trx, previousIdHash);
    await users.deleteExpiredSessions(trx, nowIso(), isoAfter(-SESSION_IDLE_S));
    const name = (typeof claims.name === "string" && claims.name.trim().slice(0, 200)) || email.slice(0, email.indexOf("@"));
    // No password: such an account signs in through the provider (or after a password reset).
    const account = user ?? (await accounts.insertNewUser(trx, { email, name, passwordHash: null }));
    const actor: AuditActor = { type: "user", uuid: account.uuid, name: account.name };
    const joined: { workspace_uuid: string; role: string }[] = [];
    for (const invite of invites) {
      // Used once: a concurrent acceptance of the same invite wins and this one is skipped.
      if (!(await users.useOneTimeToken(trx, invite.uuid, nowIso()))) continue;
      if (await users.findMembership(trx, account.uuid, invite.workspace_uuid!)) continue;
      await users.insertMembership(trx, { user_uuid: account.uuid, workspace_uuid: invite.workspace_uuid!, role: invite.role as Role, date_created: nowIso() });
      const target = { type: "user", uuid: account.uuid, label: account.email };
      await recordAudit(trx, { workspaceUuid: invite.workspace_uuid, actor, action: "member.joined", target, clientAddress });
      joined.push({ workspace_uuid: invite.workspace_uuid!, role: invite.role! });
    }
    let workspaceUuid = memberships[0]?.workspace_uuid ?? joined[0]?.workspace_uuid ?? null;
    if (home) {
      await users.insertMembership(trx, { user_uuid: account.uuid, workspace_uuid: home, role: role ?? settings.defaultRole, date_created: nowIso() });
      const target = { type: "user", uuid: account.uuid, label: account.email };
      await recordAudit(trx, { workspaceUuid: home, actor, action: "member.joined", target, clientAddress });
      workspaceUuid = home;
    }
    if (role) for (const m of [...memberships, ...joined]) await applyRole(trx, account, m.workspace_uuid, m.role as Role, role, clientAddress);
    // The session, `last_login_at` and `login.succeeded` wait for the code (two-factor/sign-in.ts).
    if (needsCode) return null;
    await users.updateUser(trx, account.uuid, { last_login_at: nowIso() });
    const started = await accounts.startSession(trx, account.uuid, workspaceUuid);
    if (workspaceUuid) await recordAudit(trx, { workspaceUuid, actor, action: "login.succeeded", target: null, clientAddress });
    return started;
  });
  if (!started) return secondFactor!.challenge(user!);
  return started;
}

/** The workspace just-in-time members join: slug `default` (made at first start), else the oldest. */
async function defaultWorkspaceUuid(db: Executor): Promise<string | null> {
  return (await findWorkspaceBySlug(db, "default"))?.uuid ?? (await listWorkspaces(db))[0]?.uuid ?? null;
}

/**
 * Sets a membership to the mapped role (owners stay owners: the mapping cannot give or take that
 * role). A demotion withdraws what the old role granted, as `PATCH members/{uuid}/` does: keys
 * holding a scope the new role lacks, and invites it could not issue. Audited in that workspace.
 */
export async function applyRole(trx: Executor, user: users.UserRow, workspaceUuid: string, current: Role, role: Role, clientAddress: string | null) {
  if (current === "owner" || current === role) return;
  await users.updateRole(trx, user.uuid, workspaceUuid, role);
  const label = `${user.email}: ${current} → ${role} (single sign-on role mapping)`;
  await recordAudit(trx, { workspaceUuid, actor: SYSTEM, action: "member.role_changed", target: { type: "user", uuid: user.uuid, label }, clientAddress });
  const scopes = new Set<string>(ROLE_SCOPES[role]);
  for (const key of await revokeKeysCreatedBy(trx, user.uuid, workspaceUuid, scopes)) {
    await recordAudit(trx, {
      workspaceUuid,
      actor: SYSTEM,
      action: "token.revoked",
      target: { type: "token", uuid: key.uuid, label: key.name },
      clientAddress,
    });
  }
  const invitable = !scopes.has("members:write") ? [] : ROLES.filter((r) => r !== "owner" || scopes.has("workspace:write"));
  await users.withdrawInvitesIssuedBy(trx, user.uuid, workspaceUuid, invitable);
}
