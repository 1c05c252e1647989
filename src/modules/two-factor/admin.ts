/**
 * @module two-factor/admin
 * The operator's way back in for a user who lost both the authentication app and the recovery
 * codes: `earshot user reset-two-factor --email …` removes the user's second factor (audited as
 * `two_factor.disabled` by "earshot CLI"); the user signs in with the password alone and may set
 * it up again (at once, when a workspace requires it).
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { recordAudit } from "../audit/service.ts";
import { emailKey } from "../users/accounts.ts";
import { findUserByEmailKey, listUserMemberships } from "../users/repository.ts";
import * as repo from "./repository.ts";

/**
 * Removes the second factor (credential and recovery codes) of the user with this email.
 * @returns whether the user had two-factor authentication on
 * @throws AppError NOT_FOUND when no account has that email
 */
export async function resetTwoFactor(db: Kysely<Database>, email: string): Promise<{ email: string; uuid: string; was_enabled: boolean }> {
  const user = await findUserByEmailKey(db, emailKey(email));
  if (!user) throw new AppError("NOT_FOUND", `No user with the email ${email}.`);
  const wasEnabled = !!(await repo.findCredential(db, user.uuid))?.enabled_at;
  await db.transaction().execute(async (trx) => {
    await repo.deleteTwoFactor(trx, user.uuid);
    if (!wasEnabled) return;
    for (const m of await listUserMemberships(trx, user.uuid)) {
      await recordAudit(trx, {
        workspaceUuid: m.workspace_uuid,
        actor: { type: "system", uuid: null, name: "earshot CLI" },
        action: "two_factor.disabled",
        target: { type: "user", uuid: user.uuid, label: user.email },
        clientAddress: null,
      });
    }
  });
  return { email: user.email, uuid: user.uuid, was_enabled: wasEnabled };
}
