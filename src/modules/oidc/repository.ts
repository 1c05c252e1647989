/**
 * @module oidc/repository
 * Single sign-on's queries beyond the users module's: the pending invites of an email, a
 * workspace's own provider, and the identities `(issuer, subject) → user` it signs in by.
 */
import type { Selectable } from "kysely";
import type { Executor, WorkspaceOidcProviderTable } from "../../db/schema.ts";
import type { OneTimeTokenRow } from "../users/repository.ts";

/**
 * Unused, unexpired invites to `email` in any workspace, oldest first.
 * @param emailLower the address lower-cased (invites keep the address as typed)
 * @param now ISO timestamp
 */
export function pendingInvitesFor(db: Executor, emailLower: string, now: string): Promise<OneTimeTokenRow[]> {
  return db
    .selectFrom("one_time_tokens")
    .selectAll()
    .where("purpose", "=", "invite")
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", emailLower))
    .orderBy("date_created")
    .execute();
}

export type WorkspaceProviderRow = Selectable<WorkspaceOidcProviderTable>;

/** The workspace's own OpenID Provider, if it has one (enabled or not). */
export function findWorkspaceProvider(db: Executor, workspaceUuid: string): Promise<WorkspaceProviderRow | undefined> {
  return db.selectFrom("workspace_oidc_providers").selectAll().where("workspace_uuid", "=", workspaceUuid).executeTakeFirst();
}

/** Creates or replaces the workspace's provider row. */
export async function putWorkspaceProvider(db: Executor, row: WorkspaceProviderRow): Promise<void> {
  const { workspace_uuid: _key, date_created: _created, ...changes } = row;
  await db
    .insertInto("workspace_oidc_providers")
    .values(row)
    .onConflict((oc) => oc.column("workspace_uuid").doUpdateSet(changes))
    .execute();
}

/** @returns whether the workspace had a provider */
export async function deleteWorkspaceProvider(db: Executor, workspaceUuid: string): Promise<boolean> {
  const r = await db.deleteFrom("workspace_oidc_providers").where("workspace_uuid", "=", workspaceUuid).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The account bound to `(issuer, subject)`, if any. */
export function findIdentity(db: Executor, issuer: string, subject: string) {
  return db.selectFrom("oidc_identities").selectAll().where("issuer", "=", issuer).where("subject", "=", subject).executeTakeFirst();
}

/** The identity of `userUuid` at `issuer`, if the account is bound to one there. */
export function findIdentityOfUser(db: Executor, issuer: string, userUuid: string) {
  return db.selectFrom("oidc_identities").selectAll().where("issuer", "=", issuer).where("user_uuid", "=", userUuid).executeTakeFirst();
}

/** Binds `(issuer, subject)` to the account (once: the primary key refuses a second binding). */
export async function insertIdentity(db: Executor, row: { issuer: string; subject: string; user_uuid: string; date_created: string }): Promise<void> {
  await db.insertInto("oidc_identities").values(row).execute();
}

/** Ends the sessions that a workspace's provider started (the provider was removed, disabled or changed issuer). */
export async function deleteLimitedSessions(db: Executor, workspaceUuid: string): Promise<void> {
  await db.deleteFrom("console_sessions").where("limited_to_workspace_uuid", "=", workspaceUuid).execute();
  await db.deleteFrom("two_factor_challenges").where("limited_to_workspace_uuid", "=", workspaceUuid).execute();
}
