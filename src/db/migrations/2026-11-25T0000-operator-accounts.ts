/**
 * Operator accounts for the console (DESIGN §10): users, memberships with roles, server-side
 * console sessions, one-time tokens (setup, invites, password resets; hashes only) and the audit
 * log. Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull())
    /** Lowercased email: the unique, case-insensitive key. */
    .addColumn("email_key", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("password_hash", "text")
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("last_login_at", "text")
    .addColumn("disabled", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable("memberships")
    .addColumn("user_uuid", "text", (c) => c.notNull().references("users.uuid").onDelete("cascade"))
    .addColumn("workspace_uuid", "text", (c) => c.notNull().references("workspaces.uuid").onDelete("cascade"))
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("memberships_pk", ["user_uuid", "workspace_uuid"])
    .execute();
  await db.schema.createIndex("memberships_workspace").on("memberships").columns(["workspace_uuid", "date_created"]).execute();

  await db.schema
    .createTable("console_sessions")
    /** SHA-256 of the cookie value; the value itself is never stored. */
    .addColumn("id_hash", "text", (c) => c.primaryKey())
    .addColumn("user_uuid", "text", (c) => c.notNull().references("users.uuid").onDelete("cascade"))
    .addColumn("workspace_uuid", "text")
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("console_sessions_user").on("console_sessions").columns(["user_uuid"]).execute();

  await db.schema
    .createTable("one_time_tokens")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("workspace_uuid", "text")
    .addColumn("user_uuid", "text")
    .addColumn("email", "text")
    .addColumn("role", "text")
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("one_time_tokens_workspace").on("one_time_tokens").columns(["workspace_uuid", "purpose", "date_created"]).execute();

  await db.schema
    .createTable("audit_log")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text")
    .addColumn("time", "text", (c) => c.notNull())
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_uuid", "text")
    .addColumn("actor_name", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_type", "text")
    .addColumn("target_uuid", "text")
    .addColumn("target_label", "text")
    .addColumn("client_address", "text")
    .execute();
  await db.schema.createIndex("audit_log_workspace_time").on("audit_log").columns(["workspace_uuid", "time"]).execute();
  await db.schema.createIndex("audit_log_workspace_action").on("audit_log").columns(["workspace_uuid", "action", "time"]).execute();
  await db.schema.createIndex("audit_log_workspace_actor").on("audit_log").columns(["workspace_uuid", "actor_uuid", "time"]).execute();
}
