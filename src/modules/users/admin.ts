/**
 * @module users/admin
 * Operator-side account management for the `earshot user …` commands (DESIGN §2): create a user
 * with a role in a workspace, list users, and issue a one-time password-reset URL.
 */
import type { Kysely } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import type { Role } from "../../auth/roles.ts";
import { recordAudit } from "../audit/service.ts";
import { findWorkspaceByUuid, listWorkspaces } from "../workspaces/repository.ts";
import { emailKey, hashPassword, insertNewUser, issueOneTimeToken } from "./accounts.ts";
import * as repo from "./repository.ts";
import type { Config } from "../../config.ts";
import { mailEnabled, queueMail } from "../mail/service.ts";

const CLI_ACTOR = { type: "system" as const, uuid: null, name: "earshot CLI" };

/** What `earshot user create --json` prints. */
export type CreatedUser = { uuid: string; email: string; name: string; workspace_uuid: string; role: Role; reset_url: string | null };

/**
 * The workspace a command means: the given uuid, else the only one.
 * @throws AppError NOT_FOUND (unknown uuid, or no workspace), VALIDATION_ERROR (several and none named)
 */
export async function resolveWorkspace(db: Kysely<Database>, uuid: string | undefined) {
  if (uuid) {
    const ws = await findWorkspaceByUuid(db, uuid);
    if (!ws) throw new AppError("NOT_FOUND", `No workspace ${uuid}.`);
    return ws;
  }
  const all = await listWorkspaces(db);
  if (all.length === 1) return all[0]!;
  if (!all.length) throw new AppError("NOT_FOUND", "There is no workspace yet; run earshot serve once or earshot workspace create.");
  throw new AppError("VALIDATION_ERROR", "There are several workspaces; name one with --workspace UUID.");
}

/**
 * Creates an account with a role in a workspace, or adds an existing account to it. Without a
 * password the answer carries a one-time reset URL through which the user sets one.
 * @param input.role default: `owner` when the workspace has no owner yet, else `member`
 * @throws AppError VALIDATION_ERROR (short password; already a member; password for an existing account), NOT_FOUND
 */
export async function createUser(
  db: Kysely<Database>,
  publicUrl: string,
  input: { email: string; name?: string; workspaceUuid?: string; role?: Role; password?: string },
): Promise<CreatedUser> {
  const ws = await resolveWorkspace(db, input.workspaceUuid);
  if (input.password !== undefined && input.password.length < 12) throw new AppError("VALIDATION_ERROR", "A password needs at least 12 characters.");
  if (!/^[^\s@]+@[^\s@]+$/.test(input.email.trim())) throw new AppError("VALIDATION_ERROR", "An email address is needed.");
  const role = input.role ?? ((await repo.countMembers(db, ws.uuid, "owner")) === 0 ? "owner" : "member");
  const existing = await repo.findUserByEmailKey(db, emailKey(input.email));
  if (existing && input.password !== undefined) {
    throw new AppError("VALIDATION_ERROR", "This email has an account already; its password stays (use earshot user reset-password).");
  }
  if (existing && (await repo.findMembership(db, existing.uuid, ws.uuid)))
    throw new AppError("VALIDATION_ERROR", `${existing.email} is a member of this workspace already.`);
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const user = await db.transaction().execute(async (trx) => {
    const u = existing ?? (await insertNewUser(trx, { email: input.email, name: input.name?.trim() || input.email.trim().split("@")[0]!, passwordHash }));
    await repo.insertMembership(trx, { user_uuid: u.uuid, workspace_uuid: ws.uuid, role, date_created: nowIso() });
    // The workspace has its owner now: a pending first-start setup URL must not make another.
    if (role === "owner") await repo.useOutstandingTokens(trx, "setup", { workspaceUuid: ws.uuid }, nowIso());
    await recordAudit(trx, {
      workspaceUuid: ws.uuid,
      actor: CLI_ACTOR,
      action: "member.joined",
      target: { type: "user", uuid: u.uuid, label: `${u.email} as ${role}` },
      clientAddress: null,
    });
    return u;
  });
  const resetUrl = !existing && passwordHash === null ? await passwordResetUrl(db, publicUrl, user.email) : null;
  return { uuid: user.uuid, email: user.email, name: user.name, workspace_uuid: ws.uuid, role, reset_url: resetUrl };
}

/** Every user with their memberships (`earshot user list`). */
export async function listUsers(db: Kysely<Database>) {
  const [users, memberships] = await Promise.all([repo.listAllUsers(db), repo.listAllMemberships(db)]);
  return users.map((u) => ({
    uuid: u.uuid,
    email: u.email,
    name: u.name,
    disabled: !!u.disabled,
    date_created: u.date_created,
    last_login_at: u.last_login_at,
    memberships: memberships.filter((m) => m.user_uuid === u.uuid).map((m) => ({ workspace_uuid: m.workspace_uuid, role: m.role })),
  }));
}

/**
 * A one-time password-reset URL `{public_url}/console/reset/?token=…` (24 h, single use). With
 * `mail` configured (DESIGN §15) the URL is also mailed to the account's address: queued in the
 * same transaction, sent by the server's job runner (`earshot serve`, a `worker` or `all` node).
 * @param mail.lang the message's language (a mail catalog language; else English)
 * @returns the URL, and whether a mail was queued
 * @throws AppError NOT_FOUND when no account has that email
 */
export async function passwordResetUrl(
  db: Kysely<Database>,
  publicUrl: string,
  email: string,
  mail?: { config: Pick<Config, "smtpUrl" | "mailFrom">; lang: string },
): Promise<string> {
  const user = await repo.findUserByEmailKey(db, emailKey(email));
  if (!user) throw new AppError("NOT_FOUND", `No user with the email ${email}.`);
  return db.transaction().execute(async (trx) => {
    const t = await issueOneTimeToken(trx, "password_reset", { userUuid: user.uuid });
    const url = `${publicUrl}/console/reset/?token=${t.token}`;
    if (mail && mailEnabled(mail.config)) {
      const values = { email: user.email, expires: t.expires_at };
      await queueMail(trx, { kind: "password_reset", to: user.email, lang: mail.lang, url, values, token_uuid: t.uuid });
    }
    return url;
  });
}

/**
 * A fresh one-time console setup URL (DESIGN §2, §10: single use, 24 h) for the oldest workspace
 * while no owner exists anywhere; earlier setup URLs of that workspace stop working, so only the
 * newest one printed is usable. `earshot setup-url`, and `serve` at every start until an owner exists.
 * @param publicUrl `EARSHOT_PUBLIC_URL` without trailing slash
 * @returns the URL, or null when an owner exists (or there is no workspace yet)
 */
export async function freshSetupUrl(db: Kysely<Database>, publicUrl: string): Promise<string | null> {
  return db.transaction().execute(async (trx) => {
    if ((await repo.countOwners(trx)) > 0) return null;
    const [ws] = await listWorkspaces(trx);
    if (!ws) return null;
    await repo.useOutstandingTokens(trx, "setup", { workspaceUuid: ws.uuid }, nowIso());
    const setup = await issueOneTimeToken(trx, "setup", { workspaceUuid: ws.uuid });
    return `${publicUrl}/console/setup/?token=${setup.token}`;
  });
}
