/**
 * @module mail/repository
 * Where an invite's or password reset's mail stands (`one_time_tokens.mail_*`), and the mail job's
 * payload once it no longer needs its link.
 */
import type { OneTimeTokenTable, Executor } from "../../db/schema.ts";

export type MailState = NonNullable<OneTimeTokenTable["mail_state"]>;

/** Records the mail state of a one-time token (no row: nothing happens — it was withdrawn and deleted). */
export async function setMailState(db: Executor, tokenUuid: string, state: MailState, error: string | null, now: string): Promise<void> {
  await db.updateTable("one_time_tokens").set({ mail_state: state, mail_error: error, mail_updated_at: now }).where("uuid", "=", tokenUuid).execute();
}

/** Replaces a job's payload (drops the one-time URL once the mail is sent or given up). */
export async function replaceJobPayload(db: Executor, jobId: number, payload: string): Promise<void> {
  await db.updateTable("jobs").set({ payload }).where("id", "=", jobId).where("kind", "=", "mail").execute();
}
