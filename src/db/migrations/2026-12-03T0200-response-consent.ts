/**
 * A response's consent (issue 25, DESIGN §13, docs/api.md "Consent"): when the respondent agreed
 * to the link's `settings.consent` text (API timestamp) and the SHA-256 (hex) of the exact text
 * shown; both null when none was asked or given. Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("responses").addColumn("consent_given_at", "text").execute();
  await db.schema.alterTable("responses").addColumn("consent_text_sha256", "text").execute();
}
