/**
 * Non-English voice answers (issue 24, docs/api.md "Responses"): `answers.translation` keeps
 * Whisper's English translation of the recording (its translate task, when the installed model
 * is multilingual and the speech is not English), which the English engines analyse and theme;
 * `transcription` stays what the respondent said. Null otherwise.
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("answers").addColumn("translation", "text").execute();
}
