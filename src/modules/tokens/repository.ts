/**
 * @module tokens/repository
 * Kysely queries for API tokens. Only hashes are stored.
 */
import type { ApiTokenTable, Executor } from "../../db/schema.ts";
import { prepared } from "../../db/prepared.ts";

export type TokenRow = ApiTokenTable;

export function insertToken(db: Executor, row: TokenRow) {
  return db.insertInto("api_tokens").values(row).execute();
}

// Compiled once: both run on every authenticated request (db/prepared.ts).
const activeTokenByHash = prepared(1, (db, keyHash: string) =>
  db.selectFrom("api_tokens").selectAll().where("key_hash", "=", keyHash).where("revoked_at", "is", null),
);
const activeTokenUuid = prepared(1, (db, uuid: string) => db.selectFrom("api_tokens").select("uuid").where("uuid", "=", uuid).where("revoked_at", "is", null));

/** The unrevoked token with this key hash (authentication: one indexed read). */
export async function findActiveTokenByHash(db: Executor, keyHash: string): Promise<TokenRow | undefined> {
  return (await activeTokenByHash(db, keyHash))[0];
}

export function findToken(db: Executor, workspaceUuid: string, uuid: string): Promise<TokenRow | undefined> {
  return db.selectFrom("api_tokens").selectAll().where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", uuid).executeTakeFirst();
}

/** True while the token is not revoked (the re-check before responding, DESIGN §5). */
export async function isTokenActive(db: Executor, uuid: string): Promise<boolean> {
  return (await activeTokenUuid(db, uuid)).length > 0;
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

export function touchToken(db: Executor, uuid: string, at: string) {
  // Only forward: several nodes flush their usage in any order (DESIGN §11).
  return db
    .updateTable("api_tokens")
    .set({ last_used_at: at })
    .where("uuid", "=", uuid)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", at)]))
    .execute();
}

/** Counts a created key on its workspace (`workspaces.keys_created`, shown as usage). */
export function incrementKeysCreated(db: Executor, uuid: string) {
  return db
    .updateTable("workspaces")
    .set((eb) => ({ keys_created: eb("keys_created", "+", 1) }))
    .where("uuid", "=", uuid)
    .execute();
}
