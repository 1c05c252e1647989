/**
 * Mail delivery of one-time URLs (issue 28, DESIGN §15): an invite or password reset sent by mail
 * keeps where its message stands — `mail_state` (`queued`, `sent`, `retrying`, `failed`; null
 * when no mail was sent), the last SMTP error (secrets removed) and when that changed. Frozen:
 * never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("one_time_tokens").addColumn("mail_state", "text").execute();
  await db.schema.alterTable("one_time_tokens").addColumn("mail_error", "text").execute();
  await db.schema.alterTable("one_time_tokens").addColumn("mail_updated_at", "text").execute();
}
