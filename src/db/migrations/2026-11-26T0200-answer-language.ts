/**
 * The language of an answer (issue 17, docs/api.md "Responses"): the ISO 639-1 code Whisper
 * transcribed a recording in (the link's language, or the one it detected), or the link's
 * language for typed answers; null when unknown. Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("answers").addColumn("language", "text").execute();
}
