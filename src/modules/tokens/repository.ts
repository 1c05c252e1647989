/**
 * @module tokens/repository
 * Kysely queries for API tokens. Only hashes are stored.
 */
import type { Executor } from "../../db/schema.ts";
import type { TokenRow } from "../../auth/repository.ts";

// The reads authentication makes live in auth/repository.ts (src/auth/ imports no feature).
export { findActiveTokenByHash, isTokenActive, touchToken, type TokenRow } from "../../auth/repository.ts";

export function insertToken(db: Executor, row: TokenRow) {
  return db.insertInto("api_tokens").values(row).execute();
}

export function findToken(db: Executor, workspaceUuid: string, uuid: string): Promise<TokenRow | undefined> {
  return db.selectFrom("api_tokens").selectAll().where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", uuid).executeTakeFirst();
}

/** A token row with its creator's name and email (null when no user created it, or the user is gone). */
export type TokenWithCreator = TokenRow & { creator_name: string | null; creator_email: string | null };

export function listActiveTokens(db: Executor, workspaceUuid: string, limit: number, offset: number): Promise<TokenWithCreator[]> {
  return db
    .selectFrom("api_tokens")
    .leftJoin("users", "users.uuid", "api_tokens.created_by_user_uuid")
    .selectAll("api_tokens")
    .select(["users.name as creator_name", "users.email as creator_email"])
    .where("api_tokens.workspace_uuid", "=", workspaceUuid)
    .where("api_tokens.revoked_at", "is", null)
    .orderBy("api_tokens.date_created", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The active tokens `userUuid` created in the workspace (every workspace when null). */
export function listActiveTokensCreatedBy(db: Executor, userUuid: string, workspaceUuid: string | null): Promise<TokenRow[]> {
  let q = db.selectFrom("api_tokens").selectAll().where("created_by_user_uuid", "=", userUuid).where("revoked_at", "is", null);
  if (workspaceUuid !== null) q = q.where("workspace_uuid", "=", workspaceUuid);
  return q.execute();
}

export async function countActiveTokens(db: Executor, workspaceUuid: string): Promise<number> {
  const r = await db
    .selectFrom("api_tokens")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_uuid", "=", workspaceUuid)
    .where("revoked_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export function revokeToken(db: Executor, uuid: string, at: string) {
  return db.updateTable("api_tokens").set({ revoked_at: at }).where("uuid", "=", uuid).where("revoked_at", "is", null).executeTakeFirst();
}
/** Counts a created key on its workspace (`workspaces.keys_created`, shown as usage). */
export function incrementKeysCreated(db: Executor, uuid: string) {
  return db
    .updateTable("workspaces")
    .set((eb) => ({ keys_created: eb("keys_created", "+", 1) }))
    .where("uuid", "=", uuid)
    .execute();
}
