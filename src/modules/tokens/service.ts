/**
 * @module tokens/service
 * API token lifecycle (spec: API tokens, Authentication; DESIGN §5): create (the plain key is
 * returned once), list active tokens, revoke immediately.
 */
import type { Kysely } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database, Executor } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import { ALL_SCOPES, KEY_SCOPES, generateApiKey, hashApiKey, maskApiKey, type AnyScope } from "../../auth/keys.ts";
import * as repo from "./repository.ts";
import type { z } from "zod";
import type { tokenSchema } from "./model.ts";
import type { UsageRecorder } from "../../auth/usage.ts";
import type { AuthContext, Authenticator } from "../../auth/authenticate.ts";
import { isUuid } from "../../shared/uuid.ts";

/** The token record as returned by the API: the output of `tokenSchema` (model.ts). */
export type TokenRecord = z.output<typeof tokenSchema>;

/** A token row as the API shows it; `creator` is the `created_by_user_uuid` user's name and email. */
export function toTokenRecord(row: repo.TokenRow, creator: { name: string | null; email: string | null } | null = null): TokenRecord {
  return {
    uuid: row.uuid,
    name: row.name,
    masked_key: row.masked_key,
    // Stored by createToken from checked scopes.
    scopes: row.scopes.split(" ").filter(Boolean) as TokenRecord["scopes"],
    date_created: row.date_created,
    last_used_at: row.last_used_at,
    created_by:
      row.created_by_user_uuid && creator?.name != null && creator.email != null
        ? { user_uuid: row.created_by_user_uuid, name: creator.name, email: creator.email }
        : null,
  };
}

/**
 * Creates a token in a workspace (call inside the caller's transaction when it is part of a
 * larger change) and counts it in the workspace's `keys_created`.
 * @param input.createdBy the console user behind it (see `creatorOf`), revoked with them; omitted
 *   for the operator's keys
 * @returns the record plus `key`, the plain API key (never retrievable again)
 */
export async function createToken(
  db: Executor,
  workspaceUuid: string,
  input: { name: string; scopes?: readonly AnyScope[]; createdBy?: { uuid: string; name: string; email: string } | null },
): Promise<TokenRecord & { key: string }> {
  const key = generateApiKey();
  const row: repo.TokenRow = {
    uuid: crypto.randomUUID(),
    workspace_uuid: workspaceUuid,
    name: input.name,
    key_hash: hashApiKey(key),
    masked_key: maskApiKey(key),
    scopes: [...new Set(input.scopes ?? ALL_SCOPES)].join(" "),
    date_created: nowIso(),
    last_used_at: null,
    revoked_at: null,
    created_by_user_uuid: input.createdBy?.uuid ?? null,
  };
  await repo.insertToken(db, row);
  await repo.incrementKeysCreated(db, workspaceUuid);
  return { ...toTokenRecord(row, input.createdBy ?? null), key };
}

/**
 * `POST tokens/`: a key for the caller's workspace with at most the caller's scopes
 * ({@link scopesForNewToken}), created in one transaction that re-checks the caller's key or
 * session before it commits (a caller revoked meanwhile mints nothing).
 * @returns the record plus `key`, the plain API key (never retrievable again)
 * @throws AppError INSUFFICIENT_SCOPE (a requested scope the caller lacks), UNAUTHENTICATED (revoked meanwhile)
 */
export async function issueToken(
  db: Kysely<Database>,
  authn: Pick<Authenticator, "assertActive">,
  auth: AuthContext,
  input: { name: string; scopes?: readonly AnyScope[] },
): Promise<TokenRecord & { key: string }> {
  const scopes = scopesForNewToken(input.scopes, auth.scopes);
  return db.transaction().execute(async (trx) => {
    const created = await createToken(trx, auth.workspaceUuid, { name: input.name, scopes, createdBy: await creatorOf(trx, auth) });
    await authn.assertActive(trx, auth);
    return created;
  });
}

/**
 * The console user behind a request, for keys and invites it creates: the session's user, or the
 * user who created the calling key (so a key minted by a key still goes with its user); null for
 * the operator's keys. Call inside the writing transaction.
 */
export async function creatorOf(db: Executor, auth: AuthContext): Promise<{ uuid: string; name: string; email: string } | null> {
  const userUuid = auth.sessionIdHash !== null ? auth.actor.uuid : (await repo.findToken(db, auth.workspaceUuid, auth.tokenUuid!))?.created_by_user_uuid;
  if (!userUuid) return null;
  const user = await db.selectFrom("users").select(["uuid", "name", "email"]).where("uuid", "=", userUuid).executeTakeFirst();
  return user ?? null;
}

/**
 * Revokes the active keys `userUuid` created in the workspace (every workspace when null) — all of
 * them, or with `keepScopes` only those holding a scope outside it (a demotion).
 * @returns the revoked rows
 */
export async function revokeKeysCreatedBy(
  db: Executor,
  userUuid: string,
  workspaceUuid: string | null,
  keepScopes?: ReadonlySet<string>,
): Promise<repo.TokenRow[]> {
  const rows = await repo.listActiveTokensCreatedBy(db, userUuid, workspaceUuid);
  const at = nowIso();
  const revoked: repo.TokenRow[] = [];
  for (const row of rows) {
    if (
      keepScopes &&
      row.scopes
        .split(" ")
        .filter(Boolean)
        .every((s) => keepScopes.has(s))
    )
      continue;
    await repo.revokeToken(db, row.uuid, at);
    revoked.push(row);
  }
  return revoked;
}

/**
 * The scopes a new key gets when created by a caller holding `creatorScopes` (DESIGN §5): the
 * requested scopes when all of them are the creator's own, or the creator's own scopes when none
 * are requested. A key never mints a key with more power than itself. Works on any caller's
 * scope set (an API key's, or the one a console session's role maps to).
 * @param requested the `scopes` of `POST tokens/`, or undefined when omitted
 * @param creatorScopes the scopes of the caller (`AuthContext.scopes`)
 * Administrative scopes (`members:*`, `audit:read`, `workspace:write`) go into a key only when
 * asked for by a creator holding them; omitted scopes give the creator's scopes ∩ the 8 spec scopes.
 * @returns the scopes for the new key: the requested ones without repeats, or the creator's spec
 *   scopes in the order of {@link ALL_SCOPES}
 * @throws AppError INSUFFICIENT_SCOPE naming every requested scope the creator lacks
 */
export function scopesForNewToken(requested: readonly AnyScope[] | undefined, creatorScopes: ReadonlySet<string>): AnyScope[] {
  const wanted = new Set<string>(requested ?? [...creatorScopes]);
  const missing = KEY_SCOPES.filter((s) => wanted.has(s) && !creatorScopes.has(s));
  if (missing.length) {
    const list = missing.map((s) => `"${s}"`).join(", ");
    throw new AppError("INSUFFICIENT_SCOPE", `A key can only create keys with its own scopes; this one lacks ${list}.`);
  }
  return requested ? [...new Set(requested)] : ALL_SCOPES.filter((s) => wanted.has(s));
}

/** One page of the workspace's active tokens, newest first, and their total. */
export async function listTokens(db: Executor, workspaceUuid: string, limit: number, offset: number, usage?: Pick<UsageRecorder, "lastUsedAt">) {
  const [rows, count] = await Promise.all([repo.listActiveTokens(db, workspaceUuid, limit, offset), repo.countActiveTokens(db, workspaceUuid)]);
  // `last_used_at` is written coalesced (DESIGN §5); the latest use may still be in memory.
  const results = rows.map((r) => toTokenRecord(r, { name: r.creator_name, email: r.creator_email }));
  if (usage) for (const t of results) t.last_used_at = usage.lastUsedAt(t.uuid, t.last_used_at);
  return { count, results };
}

/**
 * Revokes a token of the workspace; effective for every later check, including requests in flight.
 * @throws AppError NOT_FOUND when no active token with that uuid is in the workspace
 */
export async function revokeToken(db: Kysely<Database>, workspaceUuid: string, uuid: string): Promise<void> {
  const row = isUuid(uuid) ? await repo.findToken(db, workspaceUuid, uuid) : undefined;
  if (!row || row.revoked_at) throw notFound("Token");
  await repo.revokeToken(db, uuid, nowIso());
}

/**
 * Revokes a token by uuid in any workspace (operator CLI).
 * @returns false when there was no active token with that uuid
 */
export async function revokeTokenAnyWorkspace(db: Executor, uuid: string): Promise<boolean> {
  const r = await repo.revokeToken(db, uuid, nowIso());
  return Number(r.numUpdatedRows) > 0;
}
