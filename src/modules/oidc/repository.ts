/**
 * @module oidc/repository
 * The one query single sign-on needs beyond the users module's: the pending invites of an email.
 */
import type { Executor } from "../../db/schema.ts";
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
