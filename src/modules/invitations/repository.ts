/**
 * @module invitations/repository
 * Kysely queries of the `invitations` table (migration 2026-12-03T0300). Takes `db` or `trx`.
 */
import { sql, type Selectable } from "kysely";
import type { InvitationTable, Executor } from "../../db/schema.ts";

export type InvitationRow = Selectable<InvitationTable>;
/** The states of model.ts's INVITATION_STATES (repositories import no models). */
type InvitationState = "unused" | "started" | "submitted" | "expired" | "revoked";

/** Inserts rows in chunks (bound parameters per statement stay well under both engines' limits). */
export async function insertInvitations(db: Executor, rows: InvitationRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto("invitations")
      .values(rows.slice(i, i + 200))
      .execute();
}

/** The SQL condition of one state at `now` (precedence: submitted, revoked, started, expired, unused). */
function stateCondition(state: InvitationState, now: string) {
  switch (state) {
    case "submitted":
      return sql<boolean>`submitted_at is not null`;
    case "revoked":
      return sql<boolean>`submitted_at is null and revoked_at is not null`;
    case "started":
      return sql<boolean>`submitted_at is null and revoked_at is null and response_uuid is not null`;
    case "expired":
      return sql<boolean>`submitted_at is null and revoked_at is null and response_uuid is null and expires_at is not null and expires_at <= ${now}`;
    case "unused":
      return sql<boolean>`submitted_at is null and revoked_at is null and response_uuid is null and (expires_at is null or expires_at > ${now})`;
  }
}

/** One page of a link's invitations, oldest first (the order they were minted in), and the total. */
export async function listInvitations(db: Executor, linkUuid: string, state: InvitationState | undefined, now: string, limit: number, offset: number) {
  let q = db.selectFrom("invitations").where("link_uuid", "=", linkUuid);
  if (state) q = q.where(stateCondition(state, now));
  const [rows, total] = await Promise.all([
    q.selectAll().orderBy("date_created").orderBy("uuid").limit(limit).offset(offset).execute(),
    q.select((eb) => eb.fn.countAll<string | number>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}

export function findInvitation(db: Executor, linkUuid: string, uuid: string): Promise<InvitationRow | undefined> {
  return db.selectFrom("invitations").selectAll().where("uuid", "=", uuid).where("link_uuid", "=", linkUuid).executeTakeFirst();
}

export function findInvitationOfResponse(db: Executor, responseUuid: string): Promise<InvitationRow | undefined> {
  return db.selectFrom("invitations").selectAll().where("response_uuid", "=", responseUuid).executeTakeFirst();
}

/**
 * Binds the invitation to `responseUuid` only while it is bound to `expected` (null: unused).
 * @returns true when this call bound it (the compare-and-set that makes two starts one response)
 */
export async function bindInvitation(db: Executor, uuid: string, expected: string | null, responseUuid: string, at: string): Promise<boolean> {
  const r = await db
    .updateTable("invitations")
    .set({ response_uuid: responseUuid, started_at: at })
    .where("uuid", "=", uuid)
    .where("submitted_at", "is", null)
    .where("revoked_at", "is", null)
    .where((eb) => (expected === null ? eb("response_uuid", "is", null) : eb("response_uuid", "=", expected)))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function markSubmitted(db: Executor, uuid: string, at: string): Promise<void> {
  await db.updateTable("invitations").set({ submitted_at: at }).where("uuid", "=", uuid).where("submitted_at", "is", null).execute();
}

export async function revokeInvitation(db: Executor, uuid: string, at: string): Promise<void> {
  await db.updateTable("invitations").set({ revoked_at: at }).where("uuid", "=", uuid).where("revoked_at", "is", null).execute();
}
