/**
 * Multilingual content (issue 17, docs/api.md "Translations"): a link's and each question's
 * translations per BCP 47 language, as JSON (`{}` when none). Frozen: never edit, add a new
 * migration instead.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("links")
    .addColumn("translations", "text", (c) => c.notNull().defaultTo(sql`'{}'`))
    .execute();
  await db.schema
    .alterTable("questions")
    .addColumn("translations", "text", (c) => c.notNull().defaultTo(sql`'{}'`))
    .execute();
}
