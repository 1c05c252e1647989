/**
 * @module tokens/repository
 * Kysely queries for API tokens. Only hashes are stored.
 */
import type { Kysely, Transaction } from "kysely";
import type { ApiTokenTable, Database } from "../../db/schema.ts";
import { prepared } from "../../db/prepared.ts";

type Q = Kysely<Database> | Transaction<Database>;
export type TokenRow = ApiTokenTable;

export function insertToken(db: Q, row: TokenRow) {
  return db.insertInto("api_tokens").values(row).execute();
}

// Compiled once: both run on every authenticated request (db/prepared.ts).
const activeTokenByHash = prepared(1, (db, keyHash: string) => db.selectFrom("api_tokens").selectAll().where("key_hash", "=", keyHash).where("revoked_at", "is", null));
const activeTokenUuid = prepared(1, (db, uuid: string) => db.selectFrom("api_tokens").select("uuid").where("uuid", "=", uuid).where("revoked_at", "is", null));

/** The unrevoked token with this key hash (authentication: one indexed read). */
export async function findActiveTokenByHash(db: Q, keyHash: string): Promise<TokenRow | undefined> {
  return (await activeTokenByHash(db, keyHash))[0];
}

export function findToken(db: Q, workspaceUuid: string, uuid: string): Promise<TokenRow | undefined> {
  return db.selectFrom("api_tokens").selectAll().where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", uuid).executeTakeFirst();
}

/** True while the token is not revoked (the re-check before responding, DESIGN §5). */
export async function isTokenActive(db: Q, uuid: string): Promise<boolean> {
  return (await activeTokenUuid(db, uuid)).length > 0;
}

export function listActiveTokens(db: Q, workspaceUuid: string, limit: number, offset: number): Promise<TokenRow[]> {
  return db
    .selectFrom("api_tokens")
    .selectAll()
    .where("workspace_uuid", "=", workspaceUuid)
    .where("revoked_at", "is", null)
    .orderBy("date_created", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countActiveTokens(db: Q, workspaceUuid: string): Promise<number> {
  const r = await db
    .selectFrom("api_tokens")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_uuid", "=", workspaceUuid)
    .where("revoked_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export function revokeToken(db: Q, uuid: string, at: string) {
  return db.updateTable("api_tokens").set({ revoked_at: at }).where("uuid", "=", uuid).where("revoked_at", "is", null).executeTakeFirst();
}

export function touchToken(db: Q, uuid: string, at: string) {
  return db.updateTable("api_tokens").set({ last_used_at: at }).where("uuid", "=", uuid).execute();
}
