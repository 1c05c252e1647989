/**
 * Who created an API key or issued an invite (security review finding 6; docs/console.md "Roles"):
 * `api_tokens.created_by_user_uuid` and `one_time_tokens.created_by_user_uuid`, the console user
 * behind it — directly (a session) or through a key that user created. Null for keys made by the
 * operator (`earshot token create`, a workspace's first key) and for rows from before this
 * migration. Removing a member, disabling a user or demoting one below a key's scopes revokes the
 * keys (and withdraws the pending invites) they created. Frozen: never edit, add a new migration.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_tokens").addColumn("created_by_user_uuid", "text").execute();
  await db.schema.alterTable("one_time_tokens").addColumn("created_by_user_uuid", "text").execute();
  await db.schema
    .createIndex("api_tokens_created_by")
    .on("api_tokens")
    .columns(["created_by_user_uuid", "workspace_uuid"])
    .where(sql.ref("revoked_at"), "is", null)
    .execute();
  await db.schema
    .createIndex("one_time_tokens_created_by")
    .on("one_time_tokens")
    .column("created_by_user_uuid")
    .where(sql.ref("used_at"), "is", null)
    .execute();
}
