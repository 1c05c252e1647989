/**
 * @module users/repository
 * Kysely queries for operator accounts: users, memberships, console sessions and one-time tokens
 * (setup, invites, password resets). Secrets are stored only as SHA-256 hashes.
 */
import type { OneTimeTokenTable, Executor } from "../../db/schema.ts";
import type { MembershipRow, SessionRow, UserRow } from "../../auth/repository.ts";

// The reads authentication makes live in auth/repository.ts (src/auth/ imports no feature).
export {
  deleteSession,
  findMembership,
  findSession,
  findUserByUuid,
  isSessionActive,
  touchSession,
  type MembershipRow,
  type SessionRow,
  type UserRow,
} from "../../auth/repository.ts";

export type OneTimeTokenRow = OneTimeTokenTable;

export function insertUser(db: Executor, row: UserRow) {
  return db.insertInto("users").values(row).execute();
}

export function findUserByEmailKey(db: Executor, emailKey: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("email_key", "=", emailKey).executeTakeFirst();
}

export function updateUser(db: Executor, uuid: string, patch: Partial<Pick<UserRow, "name" | "password_hash" | "last_login_at" | "disabled">>) {
  return db.updateTable("users").set(patch).where("uuid", "=", uuid).execute();
}

export function listAllUsers(db: Executor): Promise<UserRow[]> {
  return db.selectFrom("users").selectAll().orderBy("date_created").execute();
}

export function listAllMemberships(db: Executor): Promise<MembershipRow[]> {
  return db.selectFrom("memberships").selectAll().orderBy("date_created").execute();
}

export function insertMembership(db: Executor, row: MembershipRow) {
  return db.insertInto("memberships").values(row).execute();
}

/** A user's memberships with their workspaces' names and slugs, oldest first. */
export function listUserMemberships(db: Executor, userUuid: string) {
  return db
    .selectFrom("memberships")
    .innerJoin("workspaces", "workspaces.uuid", "memberships.workspace_uuid")
    .select(["memberships.workspace_uuid", "memberships.role", "workspaces.name as workspace_name", "workspaces.slug as workspace_slug"])
    .where("memberships.user_uuid", "=", userUuid)
    .orderBy("memberships.date_created")
    .execute();
}

/** One page of a workspace's members with their accounts, oldest membership first. */
export function listMembers(db: Executor, workspaceUuid: string, limit: number, offset: number) {
  return db
    .selectFrom("memberships")
    .innerJoin("users", "users.uuid", "memberships.user_uuid")
    .select(["users.uuid", "users.email", "users.name", "users.disabled", "users.date_created", "users.last_login_at", "memberships.role"])
    .where("memberships.workspace_uuid", "=", workspaceUuid)
    .orderBy("memberships.date_created")
    .orderBy("users.uuid")
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countMembers(db: Executor, workspaceUuid: string, role?: MembershipRow["role"]): Promise<number> {
  let q = db
    .selectFrom("memberships")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_uuid", "=", workspaceUuid);
  if (role) q = q.where("role", "=", role);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export function updateRole(db: Executor, userUuid: string, workspaceUuid: string, role: MembershipRow["role"]) {
  return db.updateTable("memberships").set({ role }).where("user_uuid", "=", userUuid).where("workspace_uuid", "=", workspaceUuid).execute();
}

export function deleteMembership(db: Executor, userUuid: string, workspaceUuid: string) {
  return db.deleteFrom("memberships").where("user_uuid", "=", userUuid).where("workspace_uuid", "=", workspaceUuid).execute();
}

export function insertSession(db: Executor, row: SessionRow) {
  return db.insertInto("console_sessions").values(row).execute();
}

export function setSessionWorkspace(db: Executor, idHash: string, workspaceUuid: string | null) {
  return db.updateTable("console_sessions").set({ workspace_uuid: workspaceUuid }).where("id_hash", "=", idHash).execute();
}

/** Ends every session of a user, except `keepIdHash` when given. */
export function deleteUserSessions(db: Executor, userUuid: string, keepIdHash?: string) {
  let q = db.deleteFrom("console_sessions").where("user_uuid", "=", userUuid);
  if (keepIdHash) q = q.where("id_hash", "!=", keepIdHash);
  return q.execute();
}

/** Drops sessions past their absolute end or idle since before `idleBefore`. */
export function deleteExpiredSessions(db: Executor, now: string, idleBefore: string) {
  return db
    .deleteFrom("console_sessions")
    .where((eb) => eb.or([eb("expires_at", "<=", now), eb("last_seen_at", "<=", idleBefore)]))
    .execute();
}

export function insertOneTimeToken(db: Executor, row: OneTimeTokenRow) {
  return db.insertInto("one_time_tokens").values(row).execute();
}

export function findOneTimeToken(db: Executor, tokenHash: string): Promise<OneTimeTokenRow | undefined> {
  return db.selectFrom("one_time_tokens").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
}

/**
 * Marks a one-time token used, once.
 * @returns true when this call used it (false when already used)
 */
export async function useOneTimeToken(db: Executor, uuid: string, at: string): Promise<boolean> {
  const r = await db.updateTable("one_time_tokens").set({ used_at: at }).where("uuid", "=", uuid).where("used_at", "is", null).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Marks every unused one-time token of `purpose` for the user (password resets) or the workspace
 * (setup URLs) used, so an older link stops working once a newer one did its job.
 * @returns tokens marked
 */
export async function useOutstandingTokens(
  db: Executor,
  purpose: "password_reset" | "setup",
  owner: { userUuid: string } | { workspaceUuid: string },
  at: string,
): Promise<number> {
  let q = db.updateTable("one_time_tokens").set({ used_at: at }).where("purpose", "=", purpose).where("used_at", "is", null);
  q = "userUuid" in owner ? q.where("user_uuid", "=", owner.userUuid) : q.where("workspace_uuid", "=", owner.workspaceUuid);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Owners across every workspace (0: nobody can sign in to the console yet). */
export async function countOwners(db: Executor): Promise<number> {
  const row = await db
    .selectFrom("memberships")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("role", "=", "owner")
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** One page of a workspace's pending invites (unused, unexpired), newest first. */
export function listPendingInvites(db: Executor, workspaceUuid: string, now: string, limit: number, offset: number): Promise<OneTimeTokenRow[]> {
  return db
    .selectFrom("one_time_tokens")
    .selectAll()
    .where("workspace_uuid", "=", workspaceUuid)
    .where("purpose", "=", "invite")
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .orderBy("date_created", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countPendingInvites(db: Executor, workspaceUuid: string, now: string): Promise<number> {
  const r = await db
    .selectFrom("one_time_tokens")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_uuid", "=", workspaceUuid)
    .where("purpose", "=", "invite")
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Deletes a pending invite of the workspace. @returns true when one was deleted */
export async function deleteInvite(db: Executor, workspaceUuid: string, uuid: string): Promise<boolean> {
  const r = await db
    .deleteFrom("one_time_tokens")
    .where("workspace_uuid", "=", workspaceUuid)
    .where("purpose", "=", "invite")
    .where("uuid", "=", uuid)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * Withdraws (deletes) the pending invites `userUuid` issued in the workspace (every workspace when
 * null), or with `keepRoles` only those inviting to a role outside it.
 * @returns invites withdrawn
 */
export async function withdrawInvitesIssuedBy(db: Executor, userUuid: string, workspaceUuid: string | null, keepRoles?: readonly string[]): Promise<number> {
  let q = db.deleteFrom("one_time_tokens").where("purpose", "=", "invite").where("created_by_user_uuid", "=", userUuid).where("used_at", "is", null);
  if (workspaceUuid !== null) q = q.where("workspace_uuid", "=", workspaceUuid);
  if (keepRoles) q = q.where("role", "not in", keepRoles.length ? keepRoles : [""]);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}
