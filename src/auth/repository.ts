/**
 * @module auth/repository
 * The identity reads and writes authentication needs, in Kysely (issue 23: src/auth/ imports no
 * feature): a key by its hash and its workspace, a session, its user and membership, and the
 * usage counters (`last_used_at`, daily API calls). The features that manage these rows (tokens,
 * workspaces, users) re-export them from their own repositories.
 */
import type { ApiTokenTable, ConsoleSessionTable, MembershipTable, UserTable, WorkspaceTable, Executor } from "../db/schema.ts";
import { prepared } from "../db/prepared.ts";

export type TokenRow = ApiTokenTable;
export type WorkspaceRow = Omit<WorkspaceTable, "keys_created"> & { keys_created: number };
export type UserRow = Omit<UserTable, "disabled"> & { disabled: number };
/** A membership as read; `digest` is optional on insert (it defaults to `off`). */
export type MembershipRow = Omit<MembershipTable, "digest" | "digest_lang"> & { digest?: DigestFrequency; digest_lang?: string | null };
export type DigestFrequency = "off" | "daily" | "weekly";
export type SessionRow = ConsoleSessionTable;

// Compiled once: both run on every authenticated request (db/prepared.ts).
const activeTokenByHash = prepared(1, (db, keyHash: string) =>
  db.selectFrom("api_tokens").selectAll().where("key_hash", "=", keyHash).where("revoked_at", "is", null),
);
const activeTokenUuid = prepared(1, (db, uuid: string) => db.selectFrom("api_tokens").select("uuid").where("uuid", "=", uuid).where("revoked_at", "is", null));

/** The unrevoked token with this key hash (authentication: one indexed read). */
export async function findActiveTokenByHash(db: Executor, keyHash: string): Promise<TokenRow | undefined> {
  return (await activeTokenByHash(db, keyHash))[0];
}

/** True while the token is not revoked (the re-check before responding, DESIGN §5). */
export async function isTokenActive(db: Executor, uuid: string): Promise<boolean> {
  return (await activeTokenUuid(db, uuid)).length > 0;
}

/** Moves the key's `last_used_at` forward to `at` (ISO), never back (the usage flush, auth/usage.ts). */
export function touchToken(db: Executor, uuid: string, at: string) {
  // Only forward: several nodes flush their usage in any order (DESIGN §11).
  return db
    .updateTable("api_tokens")
    .set({ last_used_at: at })
    .where("uuid", "=", uuid)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", at)]))
    .execute();
}

// Compiled once: authentication reads the key's workspace on every request (db/prepared.ts).
const workspaceByUuid = prepared(1, (db, uuid: string) => db.selectFrom("workspaces").selectAll().where("uuid", "=", uuid));

/** The workspace with this uuid (the key's or session's workspace on every request). */
export async function findWorkspaceByUuid(db: Executor, uuid: string): Promise<WorkspaceRow | undefined> {
  return (await workspaceByUuid(db, uuid))[0];
}

/** Adds `n` API calls to the workspace's counter of `day` (`YYYY-MM-DD`), creating it at `n`. */
export function addApiCalls(db: Executor, workspaceUuid: string, day: string, n: number) {
  return db
    .insertInto("api_call_counters")
    .values({ workspace_uuid: workspaceUuid, day, calls: n })
    .onConflict((oc) => oc.columns(["workspace_uuid", "day"]).doUpdateSet((eb) => ({ calls: eb("api_call_counters.calls", "+", eb.ref("excluded.calls")) })))
    .execute();
}

/** The console user with this uuid, disabled or not. */
export function findUserByUuid(db: Executor, uuid: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("uuid", "=", uuid).executeTakeFirst();
}

/** The user's membership (role) in the workspace, if any. */
export function findMembership(db: Executor, userUuid: string, workspaceUuid: string): Promise<MembershipRow | undefined> {
  return db.selectFrom("memberships").selectAll().where("user_uuid", "=", userUuid).where("workspace_uuid", "=", workspaceUuid).executeTakeFirst();
}

/** The console session with this id hash (SHA-256 of the cookie), expired or not. */
export function findSession(db: Executor, idHash: string): Promise<SessionRow | undefined> {
  return db.selectFrom("console_sessions").selectAll().where("id_hash", "=", idHash).executeTakeFirst();
}

/** Records activity on the session at `at` (ISO): its idle expiry counts from there. */
export function touchSession(db: Executor, idHash: string, at: string) {
  return db.updateTable("console_sessions").set({ last_seen_at: at }).where("id_hash", "=", idHash).execute();
}

/** Ends the session (sign-out, or found expired). */
export function deleteSession(db: Executor, idHash: string) {
  return db.deleteFrom("console_sessions").where("id_hash", "=", idHash).execute();
}

/**
 * True while the session exists, its user is enabled and still a member of `workspaceUuid` — with
 * `role`, still in that role (the re-check that makes a removed, demoted or disabled user stop
 * mid-request: the request was authorized for the role it started with).
 */
export async function isSessionActive(db: Executor, idHash: string, workspaceUuid: string, role?: MembershipRow["role"] | null): Promise<boolean> {
  let q = db
    .selectFrom("console_sessions")
    .innerJoin("users", "users.uuid", "console_sessions.user_uuid")
    .innerJoin("memberships", (j) => j.onRef("memberships.user_uuid", "=", "users.uuid").on("memberships.workspace_uuid", "=", workspaceUuid))
    .select("console_sessions.id_hash")
    .where("console_sessions.id_hash", "=", idHash)
    .where("users.disabled", "=", 0);
  if (role) q = q.where("memberships.role", "=", role);
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * Whether a session of this user on this workspace must enrol first: the workspace requires a
 * second factor and the user has no enabled credential. One query (it runs on every console request).
 */
export async function mustEnrol(db: Executor, userUuid: string, workspaceUuid: string): Promise<boolean> {
  const row = await db
    .selectFrom("two_factor_policies as p")
    .select("p.workspace_uuid")
    .where("p.workspace_uuid", "=", workspaceUuid)
    .where((eb) =>
      eb.not(
        eb.exists(eb.selectFrom("two_factor_credentials as c").select("c.user_uuid").where("c.user_uuid", "=", userUuid).where("c.enabled_at", "is not", null)),
      ),
    )
    .executeTakeFirst();
  return !!row;
}
