/**
 * @module users/service
 * Console sign-in and account flows (DESIGN §10; console contract): login with throttling and one
 * generic failure message, logout, workspace switch, first-start setup, invites, password reset
 * and change. Every success that starts a session returns a fresh session id (no fixation).
 */
import type { Kysely } from "kysely";
import { z } from "zod";
import { isoAfter, nowIso } from "../../clock.ts";
import { SESSION_IDLE_S } from "../../auth/sessions.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import type { LoginAttempt, LoginThrottle } from "../../auth/login-throttle.ts";
import { assertAccountWide, type SessionAuth } from "../../auth/authenticate.ts";
import type { Role } from "../../auth/roles.ts";
import { recordAudit, type AuditAction } from "../audit/service.ts";
import { findWorkspaceByUuid } from "../workspaces/repository.ts";
import { passwordSchema } from "./model.ts";
import { parseWith } from "../../http/validation.ts";
import * as accounts from "./accounts.ts";
import * as repo from "./repository.ts";
import { rateLimitRefusals } from "../../metrics/instruments.ts";

/**
 * The second sign-in step, supplied by the two-factor feature (app.ts wires it; users never import
 * it): whether a user must give a code, and the refusal that hands out the ticket for it.
 */
export type SecondFactorGate = {
  isRequired(userUuid: string): Promise<boolean>;
  /**
   * @param limitedTo the session the code starts is limited to this workspace (a workspace's provider)
   * @throws AppError TWO_FACTOR_REQUIRED carrying a single-use ticket (always throws)
   */
  challenge(user: repo.UserRow, limitedTo?: string | null): Promise<never>;
};

export type UsersDeps = { db: Kysely<Database>; throttle: LoginThrottle; publicUrl: string; secondFactor?: SecondFactorGate };
/** A started session: the cookie value for `Set-Cookie` and the `Session` view. */
export type StartedSession = { cookie: string; view: accounts.SessionView };

const INVALID = "The email or password is wrong.";

async function recordForUser(deps: UsersDeps, user: repo.UserRow, action: AuditAction, clientAddress: string | null, actorType: "user" | "system" = "user") {
  const memberships = await repo.listUserMemberships(deps.db, user.uuid);
  for (const m of memberships) {
    await recordAudit(deps.db, {
      workspaceUuid: m.workspace_uuid,
      actor: actorType === "user" ? { type: "user", uuid: user.uuid, name: user.name } : { type: "system", uuid: null, name: "system" },
      action,
      target: { type: "user", uuid: user.uuid, label: user.email },
      clientAddress,
    });
  }
}

/**
 * Begins a password check: counted as a failure from now on (so parallel guesses see it) until
 * `succeeded()` takes it back.
 * @throws AppError RATE_LIMITED (with Retry-After) when the account or address is throttled
 */
async function beginAttempt(deps: UsersDeps, email: string, address: string | null): Promise<LoginAttempt> {
  const begun = await deps.throttle.begin(accounts.emailKey(email), address);
  if ("retryAfterS" in begun) {
    rateLimitRefusals.labels("sign_in").inc();
    throw new AppError("RATE_LIMITED", "Too many failed sign-ins; retry after the time in Retry-After.", {
      headers: { "Retry-After": String(begun.retryAfterS) },
    });
  }
  return begun.attempt;
}

/**
 * Signs in with email and password. A wrong email, a wrong password and a disabled account answer
 * alike; failures count against the account and the address and are audited as `login.failed`.
 * @param previousIdHash the session the browser held before, ended now
 * @throws AppError RATE_LIMITED (with Retry-After), INVALID_CREDENTIALS
 */
export async function login(
  deps: UsersDeps,
  input: { email: string; password: string },
  clientAddress: string | null,
  previousIdHash: string | null,
): Promise<StartedSession> {
  const attempt = await beginAttempt(deps, input.email, clientAddress);
  const user = await repo.findUserByEmailKey(deps.db, accounts.emailKey(input.email));
  const ok = (await accounts.verifyPassword(input.password, user?.password_hash ?? null)) && !!user && !user.disabled;
  if (!ok || !user) {
    if (user) await recordForUser(deps, user, "login.failed", clientAddress);
    else {
      await recordAudit(deps.db, {
        workspaceUuid: null,
        actor: { type: "system", uuid: null, name: "system" },
        action: "login.failed",
        target: { type: "user", uuid: null, label: input.email.slice(0, 320) },
        clientAddress,
      });
    }
    throw new AppError("INVALID_CREDENTIALS", INVALID);
  }
  await attempt.succeeded();
  // A second factor, when the user has one, comes before any session (modules/two-factor).
  if (await deps.secondFactor?.isRequired(user.uuid)) return deps.secondFactor!.challenge(user);
  return startSignedInSession(deps.db, user, clientAddress, previousIdHash);
}

/**
 * Starts the session of a user whose credentials were checked (password, and the second factor
 * when they have one): ends the browser's previous session, stamps `last_login_at`, audits
 * `login.succeeded`.
 * @param previousIdHash the session the browser held before, ended now
 * @param limitedTo the workspace a workspace provider's session is limited to (two-factor ticket)
 * @throws AppError OIDC_NOT_A_MEMBER when limited to a workspace the user has left meanwhile
 */
export async function startSignedInSession(
  db: Kysely<Database>,
  user: repo.UserRow,
  clientAddress: string | null,
  previousIdHash: string | null,
  limitedTo: string | null = null,
): Promise<StartedSession> {
  const memberships = (await repo.listUserMemberships(db, user.uuid)).filter((m) => !limitedTo || m.workspace_uuid === limitedTo);
  if (limitedTo && !memberships[0]) throw new AppError("OIDC_NOT_A_MEMBER", "You are no longer a member of this workspace.");
  const started = await db.transaction().execute(async (trx) => {
    if (previousIdHash) await repo.deleteSession(trx, previousIdHash);
    // Sessions nobody presented again are dropped here (a sign-in is rare; the table stays small).
    await repo.deleteExpiredSessions(trx, nowIso(), isoAfter(-SESSION_IDLE_S));
    await repo.updateUser(trx, user.uuid, { last_login_at: nowIso() });
    const s = await accounts.startSession(trx, user.uuid, memberships[0]?.workspace_uuid ?? null, limitedTo);
    if (memberships[0]) {
      await recordAudit(trx, {
        workspaceUuid: memberships[0].workspace_uuid,
        actor: { type: "user", uuid: user.uuid, name: user.name },
        action: "login.succeeded",
        target: null,
        clientAddress,
      });
    }
    return s;
  });
  return { cookie: started.cookie, view: await accounts.sessionView(db, started.idHash) };
}

/** Ends one session. */
export async function logout(db: Kysely<Database>, idHash: string): Promise<void> {
  await repo.deleteSession(db, idHash);
}

/**
 * Moves the session to another of the user's workspaces.
 * @throws AppError NOT_FOUND when the user is not a member of it
 */
export async function switchWorkspace(db: Kysely<Database>, s: SessionAuth, workspaceUuid: string): Promise<accounts.SessionView> {
  // A session limited to one workspace answers for any other as for a workspace the user is not in.
  const limited = s.session.limited_to_workspace_uuid;
  if ((limited && limited !== workspaceUuid) || !(await repo.findMembership(db, s.user.uuid, workspaceUuid))) {
    throw new AppError("NOT_FOUND", "Workspace not found.");
  }
  await repo.setSessionWorkspace(db, s.idHash, workspaceUuid);
  return accounts.sessionView(db, s.idHash);
}

/**
 * First start: consumes the setup token and creates the first user as `owner` of the workspace
 * the token was issued for, signed in.
 * @throws AppError NOT_FOUND (unknown, used or expired token; the workspace has an owner already),
 *   VALIDATION_ERROR (email taken)
 */
export async function setup(
  deps: UsersDeps,
  input: { token: string; name: string; email: string; password: string },
  clientAddress: string | null,
): Promise<StartedSession> {
  const token = await accounts.findUsableToken(deps.db, input.token, "setup");
  const passwordHash = await accounts.hashPassword(input.password);
  const started = await deps.db.transaction().execute(async (trx) => {
    await accounts.consumeToken(trx, token);
    // A setup URL makes the first owner only: once the workspace has one (e.g. made with
    // `earshot user create`), an older URL must not add another.
    if ((await repo.countMembers(trx, token.workspace_uuid!, "owner")) > 0) throw new AppError("NOT_FOUND", "This link is unknown, already used or expired.");
    const user = await accounts.insertNewUser(trx, { email: input.email, name: input.name, passwordHash });
    await repo.insertMembership(trx, { user_uuid: user.uuid, workspace_uuid: token.workspace_uuid!, role: "owner", date_created: nowIso() });
    await repo.updateUser(trx, user.uuid, { last_login_at: nowIso() });
    const actor = { type: "user" as const, uuid: user.uuid, name: user.name };
    await recordAudit(trx, {
      workspaceUuid: token.workspace_uuid,
      actor,
      action: "member.joined",
      target: { type: "user", uuid: user.uuid, label: user.email },
      clientAddress,
    });
    return accounts.startSession(trx, user.uuid, token.workspace_uuid);
  });
  return { cookie: started.cookie, view: await accounts.sessionView(deps.db, started.idHash) };
}

/**
 * What the invite page shows before accepting.
 * @throws AppError NOT_FOUND for an unknown, used or expired invite
 */
export async function describeInvite(db: Kysely<Database>, token: string) {
  const invite = await accounts.findUsableToken(db, token, "invite");
  const ws = await findWorkspaceByUuid(db, invite.workspace_uuid!);
  if (!ws) throw new AppError("NOT_FOUND", "This link is unknown, already used or expired.");
  return { email: invite.email!, workspace_name: ws.name, role: invite.role as Role, expires_at: invite.expires_at };
}

/**
 * Accepts an invite: creates the account (name and a new password needed), or, when the email has
 * an account already, adds the membership after checking that account's password. Signs in.
 * @throws AppError NOT_FOUND, VALIDATION_ERROR (`/name`, `/password`), INVALID_CREDENTIALS, RATE_LIMITED
 */
export async function acceptInvite(
  deps: UsersDeps,
  tokenValue: string,
  input: { name?: string; password: string },
  clientAddress: string | null,
): Promise<StartedSession> {
  const invite = await accounts.findUsableToken(deps.db, tokenValue, "invite");
  const existing = await repo.findUserByEmailKey(deps.db, accounts.emailKey(invite.email!));
  let passwordHash: string | null = null;
  if (existing) {
    const attempt = await beginAttempt(deps, existing.email, clientAddress);
    if (existing.disabled || !(await accounts.verifyPassword(input.password, existing.password_hash))) {
      await recordForUser(deps, existing, "login.failed", clientAddress);
      throw new AppError("INVALID_CREDENTIALS", "This email has an account; enter its password to accept.");
    }
    await attempt.succeeded();
  } else {
    if (!input.name) throw new AppError("VALIDATION_ERROR", "A name is needed.", { errors: [{ pointer: "/name", message: "A name is needed." }] });
    passwordHash = await accounts.hashPassword(parseWith(z.object({ password: passwordSchema }), { password: input.password }).password);
  }
  // An account with a second factor joins, but its session starts only after the code (two-factor).
  const needsSecondFactor = !!existing && !!(await deps.secondFactor?.isRequired(existing.uuid));
  const started = await deps.db.transaction().execute(async (trx) => {
    await accounts.consumeToken(trx, invite);
    const user = existing ?? (await accounts.insertNewUser(trx, { email: invite.email!, name: input.name!, passwordHash }));
    if (!(await repo.findMembership(trx, user.uuid, invite.workspace_uuid!))) {
      await repo.insertMembership(trx, { user_uuid: user.uuid, workspace_uuid: invite.workspace_uuid!, role: invite.role as Role, date_created: nowIso() });
    }
    await repo.updateUser(trx, user.uuid, { last_login_at: nowIso() });
    const actor = { type: "user" as const, uuid: user.uuid, name: user.name };
    await recordAudit(trx, {
      workspaceUuid: invite.workspace_uuid,
      actor,
      action: "member.joined",
      target: { type: "user", uuid: user.uuid, label: user.email },
      clientAddress,
    });
    return needsSecondFactor ? null : accounts.startSession(trx, user.uuid, invite.workspace_uuid);
  });
  if (!started) return deps.secondFactor!.challenge(existing!);
  return { cookie: started.cookie, view: await accounts.sessionView(deps.db, started.idHash) };
}

/**
 * Sets a new password with a reset token (`earshot user reset-password`), ends every session
 * of that user and voids their other outstanding reset links.
 * @throws AppError NOT_FOUND for an unknown, used or expired token
 */
export async function resetPassword(deps: UsersDeps, input: { token: string; password: string }, clientAddress: string | null): Promise<void> {
  const token = await accounts.findUsableToken(deps.db, input.token, "password_reset");
  const user = await repo.findUserByUuid(deps.db, token.user_uuid!);
  if (!user) throw new AppError("NOT_FOUND", "This link is unknown, already used or expired.");
  const hash = await accounts.hashPassword(input.password);
  await deps.db.transaction().execute(async (trx) => {
    await accounts.consumeToken(trx, token);
    await repo.useOutstandingTokens(trx, "password_reset", { userUuid: user.uuid }, nowIso());
    await repo.updateUser(trx, user.uuid, { password_hash: hash });
    await repo.deleteUserSessions(trx, user.uuid);
  });
  await deps.throttle.forget(user.email_key);
  await recordForUser(deps, user, "password.changed", clientAddress);
}

/**
 * Renames the signed-in user.
 * @throws AppError SESSION_LIMITED_TO_WORKSPACE for a workspace provider's session
 */
export async function updateMe(db: Kysely<Database>, s: SessionAuth, name: string): Promise<accounts.SessionView> {
  // The name shows in every workspace of the account, beyond what a workspace's provider vouches for.
  assertAccountWide(
    s,
    "change your name",
    (await repo.listUserMemberships(db, s.user.uuid)).map((m) => m.workspace_uuid),
  );
  await repo.updateUser(db, s.user.uuid, { name });
  return accounts.sessionView(db, s.idHash);
}

/**
 * Changes the signed-in user's password, ends their other sessions and voids their outstanding
 * reset links. Wrong current passwords count as failed sign-ins.
 * @throws AppError VALIDATION_ERROR (`/current_password`), RATE_LIMITED, SESSION_LIMITED_TO_WORKSPACE
 */
export async function changePassword(
  deps: UsersDeps,
  s: SessionAuth,
  input: { current_password: string; new_password: string },
  clientAddress: string | null,
): Promise<void> {
  assertAccountWide(s, "change the password");
  const attempt = await beginAttempt(deps, s.user.email, clientAddress);
  if (!(await accounts.verifyPassword(input.current_password, s.user.password_hash))) {
    throw new AppError("VALIDATION_ERROR", "The current password is wrong.", { errors: [{ pointer: "/current_password", message: "Wrong password." }] });
  }
  await attempt.succeeded();
  const hash = await accounts.hashPassword(input.new_password);
  await deps.db.transaction().execute(async (trx) => {
    await repo.updateUser(trx, s.user.uuid, { password_hash: hash });
    await repo.useOutstandingTokens(trx, "password_reset", { userUuid: s.user.uuid }, nowIso());
    await repo.deleteUserSessions(trx, s.user.uuid, s.idHash);
  });
  await recordForUser(deps, s.user, "password.changed", clientAddress);
}
