/**
 * @module invitations/service
 * A link's personal, single-use invitations (issue 25; DESIGN §13; docs/api.md "Invitations"):
 * mint (in bulk, with hidden-field values and an expiry), list with their state, revoke.
 */
import type { Kysely } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import { isUuid } from "../../shared/uuid.ts";
import type { AuthContext, Authenticator } from "../../auth/authenticate.ts";
import * as linksRepo from "../links/repository.ts";
import { workspaceHost } from "../workspaces/service.ts";
import type { CreateInvitationsInput, Invitation, InvitationState } from "./model.ts";
import * as repo from "./repository.ts";
import { invitationToken } from "./token.ts";

export type InvitationDeps = { db: Kysely<Database>; auth: Pick<Authenticator, "assertActive">; publicUrl: string; signingSecret: string };

/** The state of an invitation at `now` (precedence: submitted, revoked, started, expired, unused). */
export function invitationState(row: repo.InvitationRow, now: string): InvitationState {
  if (row.submitted_at) return "submitted";
  if (row.revoked_at) return "revoked";
  if (row.response_uuid) return "started";
  if (row.expires_at && row.expires_at <= now) return "expired";
  return "unused";
}

/**
 * The hidden-field values baked into an invitation (an object of strings; `{}` when none). The
 * intake session start reads them through this, so the response's `hidden` can take them.
 */
export function hiddenOfInvitation(row: Pick<repo.InvitationRow, "hidden">): Record<string, string> {
  return JSON.parse(row.hidden) as Record<string, string>;
}

function toInvitation(row: repo.InvitationRow, publicUrl: string, secret: string, now: string): Invitation {
  return {
    uuid: row.uuid,
    link_uuid: row.link_uuid,
    url: `${publicUrl}?inv=${invitationToken(secret, row.uuid)}`,
    state: invitationState(row, now),
    hidden: hiddenOfInvitation(row),
    expires_at: row.expires_at,
    response_uuid: row.response_uuid,
    date_created: row.date_created,
    started_at: row.started_at,
    submitted_at: row.submitted_at,
    revoked_at: row.revoked_at,
  };
}

/** The link of the caller's workspace and its public URL. @throws AppError NOT_FOUND */
async function ownLink(deps: InvitationDeps, auth: AuthContext, linkUuid: string) {
  const link = isUuid(linkUuid) ? await linksRepo.findLink(deps.db, auth.workspaceUuid, linkUuid) : undefined;
  if (!link) throw notFound("Link");
  return { link, publicUrl: `${workspaceHost(deps.publicUrl, auth.workspace)}/i/${link.slug}` };
}

/**
 * `POST links/{link_uuid}/invitations/`: mints `count` invitations (default 1, or one per `hidden`
 * object) in one transaction that re-checks the caller's key before it commits.
 * @returns `{count, results}`, the invitations in the order of `hidden`
 * @throws AppError NOT_FOUND (link), VALIDATION_ERROR (`expires_at` not in the future), UNAUTHENTICATED (revoked meanwhile)
 */
export async function createInvitations(deps: InvitationDeps, auth: AuthContext, linkUuid: string, input: CreateInvitationsInput) {
  const { link, publicUrl } = await ownLink(deps, auth, linkUuid);
  const now = nowIso();
  if (input.expires_at && input.expires_at <= now) {
    throw new AppError("VALIDATION_ERROR", "expires_at must be in the future.", { errors: [{ pointer: "/expires_at", message: "Must be in the future." }] });
  }
  const count = input.count ?? input.hidden?.length ?? 1;
  const rows: repo.InvitationRow[] = Array.from({ length: count }, (_, i) => ({
    uuid: crypto.randomUUID(),
    workspace_uuid: auth.workspaceUuid,
    link_uuid: link.uuid,
    hidden: JSON.stringify(input.hidden?.[i] ?? {}),
    expires_at: input.expires_at ?? null,
    revoked_at: null,
    response_uuid: null,
    started_at: null,
    submitted_at: null,
    // One timestamp per row, increasing: the list returns them in the order they were given.
    date_created: nowIso(),
  }));
  await deps.db.transaction().execute(async (trx) => {
    await repo.insertInvitations(trx, rows);
    await deps.auth.assertActive(trx, auth);
  });
  return { count, results: rows.map((r) => toInvitation(r, publicUrl, deps.signingSecret, now)) };
}

/** `GET links/{link_uuid}/invitations/`: one page, oldest first, optionally in one state. @throws AppError NOT_FOUND */
export async function listInvitations(
  deps: InvitationDeps,
  auth: AuthContext,
  linkUuid: string,
  state: InvitationState | undefined,
  limit: number,
  offset: number,
) {
  const { link, publicUrl } = await ownLink(deps, auth, linkUuid);
  const now = nowIso();
  const { rows, count } = await repo.listInvitations(deps.db, link.uuid, state, now, limit, offset);
  return { count, results: rows.map((r) => toInvitation(r, publicUrl, deps.signingSecret, now)) };
}

/**
 * `DELETE links/{link_uuid}/invitations/{uuid}/`: the invitation can no longer start, resume or
 * submit a response. Revoking it again is harmless; a submitted response stays.
 * @throws AppError NOT_FOUND (link or invitation, also malformed or foreign uuids)
 */
export async function revokeInvitation(deps: InvitationDeps, auth: AuthContext, linkUuid: string, uuid: string): Promise<void> {
  const { link } = await ownLink(deps, auth, linkUuid);
  const row = isUuid(uuid) ? await repo.findInvitation(deps.db, link.uuid, uuid) : undefined;
  if (!row) throw notFound("Invitation");
  await deps.db.transaction().execute(async (trx) => {
    await repo.revokeInvitation(trx, row.uuid, nowIso());
    await deps.auth.assertActive(trx, auth);
  });
}
