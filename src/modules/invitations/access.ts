/**
 * @module invitations/access
 * The intake side of invitations (DESIGN §13; docs/intake.md "Invitations"): whether a session may
 * start with (or without) an invitation, binding an invitation to the response it started (one
 * response per invitation, also for two tabs starting at once: a compare-and-set in the start's
 * transaction), and marking it used when that response is submitted.
 */
import type { Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import * as repo from "./repository.ts";
import { invitationState } from "./service.ts";
import { verifyInvitationToken } from "./token.ts";

export type InvitationLink = { uuid: string; access: "open" | "invitation" };

/** Why an invitation cannot be used now, as the error the intake API answers (null: usable). */
export function invitationRefusal(row: repo.InvitationRow | undefined, now: string, linkUuid: string): AppError | null {
  if (!row || row.link_uuid !== linkUuid) return new AppError("INVITATION_REQUIRED", "This link needs a valid personal invitation.");
  const state = invitationState(row, now);
  if (state === "submitted") return new AppError("INVITATION_USED", "This invitation was already used to submit a response.");
  if (state === "revoked") return new AppError("INVITATION_REVOKED", "This invitation was withdrawn.");
  if (state === "expired") return new AppError("INVITATION_EXPIRED", "This invitation has expired.");
  return null;
}

/**
 * The invitation a respondent's token names, checked for the link (no write).
 * @returns the row, or null when no token was sent to an open link
 * @throws AppError INVITATION_REQUIRED (missing on an invitation-only link, forged, unknown, another link's),
 *   INVITATION_USED, INVITATION_REVOKED, INVITATION_EXPIRED
 */
export async function checkInvitation(
  db: Transaction<Database> | Parameters<typeof repo.findInvitation>[0],
  secret: string,
  link: InvitationLink,
  token: unknown,
  now: string,
): Promise<repo.InvitationRow | null> {
  if ((token === undefined || token === null || token === "") && link.access === "open") return null;
  const uuid = verifyInvitationToken(secret, token);
  const row = uuid ? await repo.findInvitation(db, link.uuid, uuid) : undefined;
  const refusal = invitationRefusal(row, now, link.uuid);
  if (refusal) throw refusal;
  return row!;
}

/**
 * Binds `row` to the new response `responseUuid` inside the start's transaction. When another
 * start won (same invitation, another tab), nothing is bound and the winner's response is returned:
 * the caller answers that session instead of its own (which it must not insert).
 * @param existingAlive whether the response `row` is bound to still exists (an erased or purged
 *   started response frees the invitation again)
 * @returns null when bound to `responseUuid`; else the uuid of the response it is bound to
 * @throws AppError INVITATION_USED / INVITATION_REVOKED when it changed meanwhile
 */
export async function bindInvitationToResponse(
  trx: Transaction<Database>,
  row: repo.InvitationRow,
  responseUuid: string,
  now: string,
  existingAlive: (uuid: string) => Promise<boolean>,
): Promise<string | null> {
  const expected = row.response_uuid && !(await existingAlive(row.response_uuid)) ? row.response_uuid : null;
  if (row.response_uuid && expected === null) return row.response_uuid;
  if (await repo.bindInvitation(trx, row.uuid, expected, responseUuid, now)) return null;
  // Lost the compare-and-set: read what won (inside this transaction, after the winner's commit).
  const fresh = await repo.findInvitation(trx, row.link_uuid, row.uuid);
  const refusal = invitationRefusal(fresh, now, row.link_uuid);
  if (refusal && fresh?.response_uuid === null) throw refusal;
  if (fresh?.submitted_at) throw new AppError("INVITATION_USED", "This invitation was already used to submit a response.");
  if (fresh?.revoked_at) throw new AppError("INVITATION_REVOKED", "This invitation was withdrawn.");
  return fresh!.response_uuid!;
}

/**
 * At submit, inside its transaction: the response's invitation (if any) must not be revoked, and
 * becomes used.
 * @throws AppError INVITATION_REVOKED
 */
export async function useInvitationOf(trx: Transaction<Database>, responseUuid: string, now: string): Promise<void> {
  const row = await repo.findInvitationOfResponse(trx, responseUuid);
  if (!row) return;
  if (row.revoked_at) throw new AppError("INVITATION_REVOKED", "This invitation was withdrawn.");
  await repo.markSubmitted(trx, row.uuid, now);
}
