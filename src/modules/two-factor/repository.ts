/**
 * @module two-factor/repository
 * Kysely only: TOTP credentials, recovery codes, sign-in challenges and workspace policies
 * (migration 2026-12-04T0000-two-factor). The single-use rules are conditional updates, so two
 * concurrent requests cannot both use one code, one time step or one ticket.
 */
import type { Executor } from "../../db/schema.ts";

export type CredentialRow = { user_uuid: string; secret_encrypted: string; enabled_at: string | null; last_used_step: number | null; date_created: string };

/** The user's credential (enabled or pending), if any; `last_used_step` as a number on both engines. */
export async function findCredential(db: Executor, userUuid: string): Promise<CredentialRow | undefined> {
  const row = await db.selectFrom("two_factor_credentials").selectAll().where("user_uuid", "=", userUuid).executeTakeFirst();
  return row && { ...row, last_used_step: row.last_used_step === null ? null : Number(row.last_used_step) };
}

/** Replaces the user's credential with a pending one (a new enrolment). */
export async function putPendingCredential(db: Executor, userUuid: string, secretEncrypted: string, now: string): Promise<void> {
  await db.deleteFrom("two_factor_credentials").where("user_uuid", "=", userUuid).execute();
  await db
    .insertInto("two_factor_credentials")
    .values({ user_uuid: userUuid, secret_encrypted: secretEncrypted, enabled_at: null, last_used_step: null, date_created: now })
    .execute();
}

/** Enables a pending credential; false when it was not pending (enabled meanwhile, or gone). */
export async function enableCredential(db: Executor, userUuid: string, step: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable("two_factor_credentials")
    .set({ enabled_at: now, last_used_step: step })
    .where("user_uuid", "=", userUuid)
    .where("enabled_at", "is", null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Records `step` as used when it is later than the last used one; false: replayed (or raced). */
export async function useTimeStep(db: Executor, userUuid: string, step: number): Promise<boolean> {
  const r = await db
    .updateTable("two_factor_credentials")
    .set({ last_used_step: step })
    .where("user_uuid", "=", userUuid)
    .where((eb) => eb.or([eb("last_used_step", "is", null), eb("last_used_step", "<", step)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Removes the credential and the recovery codes (disable). */
export async function deleteTwoFactor(db: Executor, userUuid: string): Promise<void> {
  await db.deleteFrom("two_factor_recovery_codes").where("user_uuid", "=", userUuid).execute();
  await db.deleteFrom("two_factor_credentials").where("user_uuid", "=", userUuid).execute();
}

/** Replaces the user's recovery codes by these hashes. */
export async function replaceRecoveryCodes(db: Executor, userUuid: string, hashes: string[], now: string): Promise<void> {
  await db.deleteFrom("two_factor_recovery_codes").where("user_uuid", "=", userUuid).execute();
  await db
    .insertInto("two_factor_recovery_codes")
    .values(hashes.map((code_hash) => ({ code_hash, user_uuid: userUuid, used_at: null, date_created: now })))
    .execute();
}

/** Uses one recovery code of the user, once; false when unknown or used. */
export async function useRecoveryCode(db: Executor, userUuid: string, codeHash: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable("two_factor_recovery_codes")
    .set({ used_at: now })
    .where("user_uuid", "=", userUuid)
    .where("code_hash", "=", codeHash)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** How many unused recovery codes the user has. */
export async function countUnusedRecoveryCodes(db: Executor, userUuid: string): Promise<number> {
  const r = await db
    .selectFrom("two_factor_recovery_codes")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("user_uuid", "=", userUuid)
    .where("used_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Stores a sign-in challenge; expired ones are dropped at the same time (sign-ins are rare). */
export async function insertChallenge(
  db: Executor,
  row: { ticket_hash: string; user_uuid: string; expires_at: string; limited_to_workspace_uuid: string | null },
  now: string,
): Promise<void> {
  await db.deleteFrom("two_factor_challenges").where("expires_at", "<=", now).execute();
  await db
    .insertInto("two_factor_challenges")
    .values({ ...row, used_at: null })
    .execute();
}

/** A challenge that is unused and unexpired at `now`. */
export async function findLiveChallenge(db: Executor, ticketHash: string, now: string) {
  return db
    .selectFrom("two_factor_challenges")
    .selectAll()
    .where("ticket_hash", "=", ticketHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
}

/** Uses a challenge once; false when another request used it first. */
export async function useChallenge(db: Executor, ticketHash: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable("two_factor_challenges")
    .set({ used_at: now })
    .where("ticket_hash", "=", ticketHash)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Whether the workspace requires two-factor authentication. */
export async function isRequiredBy(db: Executor, workspaceUuid: string): Promise<boolean> {
  return !!(await db.selectFrom("two_factor_policies").select("workspace_uuid").where("workspace_uuid", "=", workspaceUuid).executeTakeFirst());
}

/** Sets or clears the workspace's requirement. */
export async function setRequired(db: Executor, workspaceUuid: string, required: boolean, now: string): Promise<void> {
  if (!required) {
    await db.deleteFrom("two_factor_policies").where("workspace_uuid", "=", workspaceUuid).execute();
    return;
  }
  await db
    .insertInto("two_factor_policies")
    .values({ workspace_uuid: workspaceUuid, required_since: now })
    .onConflict((oc) => oc.column("workspace_uuid").doNothing())
    .execute();
}

// `mustEnrol` (read on every console request) is authentication's: src/auth/repository.ts.
export { mustEnrol } from "../../auth/repository.ts";

/** The value of an installation setting, created with `initial` when absent (first writer wins on every node). */
export async function settingOrCreate(db: Executor, key: string, initial: string): Promise<string> {
  await db
    .insertInto("settings")
    .values({ key, value: initial })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  return (await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirstOrThrow()).value;
}

/** Ends every console session of `userUuid` but `keepIdHash` (two-factor turned on). */
export async function endOtherSessions(db: Executor, userUuid: string, keepIdHash: string): Promise<void> {
  await db.deleteFrom("console_sessions").where("user_uuid", "=", userUuid).where("id_hash", "!=", keepIdHash).execute();
}
