/**
 * Two-factor authentication (issue 28; DESIGN §15; docs/console.md "Two-factor authentication"):
 * one TOTP credential per user (the secret AES-256-GCM encrypted; `enabled_at` null while the
 * enrolment waits for its first code; `last_used_step` refuses a replayed code), the user's
 * recovery codes (SHA-256 hashes only, single use), the short-lived sign-in challenges issued after
 * a correct password (hash of the ticket only), and the workspaces that require a second factor.
 * Frozen: never edit, add a new migration.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("two_factor_credentials")
    .addColumn("user_uuid", "text", (c) => c.primaryKey().references("users.uuid").onDelete("cascade"))
    .addColumn("secret_encrypted", "text", (c) => c.notNull())
    .addColumn("enabled_at", "text")
    .addColumn("last_used_step", "bigint")
    .addColumn("date_created", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("two_factor_recovery_codes")
    .addColumn("code_hash", "text", (c) => c.primaryKey())
    .addColumn("user_uuid", "text", (c) => c.notNull().references("users.uuid").onDelete("cascade"))
    .addColumn("used_at", "text")
    .addColumn("date_created", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("two_factor_recovery_codes_user").on("two_factor_recovery_codes").columns(["user_uuid"]).execute();
  await db.schema
    .createTable("two_factor_challenges")
    .addColumn("ticket_hash", "text", (c) => c.primaryKey())
    .addColumn("user_uuid", "text", (c) => c.notNull().references("users.uuid").onDelete("cascade"))
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema
    .createTable("two_factor_policies")
    .addColumn("workspace_uuid", "text", (c) => c.primaryKey().references("workspaces.uuid").onDelete("cascade"))
    .addColumn("required_since", "text", (c) => c.notNull())
    .execute();
}
