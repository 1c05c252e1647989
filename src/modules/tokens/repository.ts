/**
 * @module tokens/repository
 * Kysely queries for API tokens. Only hashes are stored.
 */
import type { Kysely, Transaction } from "kysely";
import type { ApiTokenTable, Database } from "../../db/schema.ts";
import type { WorkspaceRow } from "../workspaces/repository.ts";

type Q = Kysely<Database> | Transaction<Database>;
export type TokenRow = ApiTokenTable;

export function insertToken(db: Q, row: TokenRow) {
  return db.insertInto("api_tokens").values(row).execute();
}

export function findActiveTokenByHash(db: Q, keyHash: string): Promise<TokenRow | undefined> {
  return db.selectFrom("api_tokens").selectAll().where("key_hash", "=", keyHash).where("revoked_at", "is", null).executeTakeFirst();
}

export type TokenWithWorkspace = { token: TokenRow; workspace: WorkspaceRow };

/**
 * The active token with this key hash and its workspace, in one statement (the authentication hot
 * path; bench/api.ts).
 * @returns undefined when no active token has the hash or its workspace is gone
 */
export async function findActiveTokenWithWorkspace(db: Q, keyHash: string): Promise<TokenWithWorkspace | undefined> {
  const row = await db
    .selectFrom("api_tokens as t")
    .innerJoin("workspaces as w", "w.uuid", "t.workspace_uuid")
    .selectAll("w")
    .select([
      "t.uuid as t_uuid",
      "t.name as t_name",
      "t.key_hash as t_key_hash",
      "t.masked_key as t_masked_key",
      "t.scopes as t_scopes",
      "t.date_created as t_date_created",
      "t.last_used_at as t_last_used_at",
    ])
    .where("t.key_hash", "=", keyHash)
    .where("t.revoked_at", "is", null)
    .executeTakeFirst();
  if (!row) return undefined;
  const { t_uuid, t_name, t_key_hash, t_masked_key, t_scopes, t_date_created, t_last_used_at, ...workspace } = row;
  return {
    token: { uuid: t_uuid, workspace_uuid: workspace.uuid, name: t_name, key_hash: t_key_hash, masked_key: t_masked_key, scopes: t_scopes, date_created: t_date_created, last_used_at: t_last_used_at, revoked_at: null },
    workspace: workspace as WorkspaceRow,
  };
}

export function findToken(db: Q, workspaceUuid: string, uuid: string): Promise<TokenRow | undefined> {
  return db.selectFrom("api_tokens").selectAll().where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", uuid).executeTakeFirst();
}

export async function isTokenActive(db: Q, uuid: string): Promise<boolean> {
  const row = await db.selectFrom("api_tokens").select("uuid").where("uuid", "=", uuid).where("revoked_at", "is", null).executeTakeFirst();
  return row !== undefined;
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
