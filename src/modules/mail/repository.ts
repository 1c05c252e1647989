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

/**
 * Records an email alert's attempt on its rule's outbox target (`last_delivery_at`,
 * `last_delivery_status`), where the API shows every alert rule's delivery state: the SMTP reply
 * code (250 when accepted), or null when no server answered. No row: the rule was deleted.
 */
export async function recordAlertMailAttempt(db: Executor, alertUuid: string, now: string, smtpCode: number | null): Promise<void> {
  await db
    .updateTable("webhooks")
    .set({ last_delivery_at: now, last_delivery_status: smtpCode })
    .where("uuid", "in", (eb) => eb.selectFrom("alert_rules").select("webhook_uuid").where("uuid", "=", alertUuid))
    .execute();
}

/** Replaces a job's payload (drops the one-time URL once the mail is sent or given up). */
export async function replaceJobPayload(db: Executor, jobId: number, payload: string): Promise<void> {
  await db.updateTable("jobs").set({ payload }).where("id", "=", jobId).where("kind", "=", "mail").execute();
}
