/**
 * Email digests (issue 28; docs/console.md "Email digests"): each member chooses, per workspace,
 * whether a digest of the workspace's links is mailed to them — `off` (the default), `daily` or
 * `weekly` — on their membership, with the mail language of the request that chose it
 * (`digest_lang`, a mail catalog language). Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("memberships")
    .addColumn("digest", "text", (c) => c.notNull().defaultTo("off"))
    .execute();
  await db.schema.alterTable("memberships").addColumn("digest_lang", "text").execute();
}
