/**
 * Per-workspace single sign-on (issue 28; DESIGN §15; docs/decisions/oidc.md "A workspace's own
 * provider"): one OpenID Provider per workspace (the client secret AES-256-GCM encrypted under an
 * installation key; allowed email domains required), the identities `(issuer, subject) → user` a
 * workspace provider signs in by, and the workspace a session (or a pending second-factor
 * ticket) started through such a provider is limited to (null: not limited).
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("workspace_oidc_providers")
    .addColumn("workspace_uuid", "text", (c) => c.primaryKey().references("workspaces.uuid").onDelete("cascade"))
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("client_secret_encrypted", "text")
    .addColumn("allowed_domains", "text", (c) => c.notNull())
    .addColumn("role_claim", "text")
    .addColumn("role_map", "text", (c) => c.notNull())
    .addColumn("auto_join", "integer", (c) => c.notNull())
    .addColumn("default_role", "text", (c) => c.notNull())
    .addColumn("provider_name", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("oidc_identities")
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("user_uuid", "text", (c) => c.notNull().references("users.uuid").onDelete("cascade"))
    .addColumn("date_created", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("oidc_identities_pk", ["issuer", "subject"])
    .execute();
  await db.schema.createIndex("oidc_identities_user").on("oidc_identities").columns(["user_uuid"]).execute();
  await db.schema.alterTable("console_sessions").addColumn("limited_to_workspace_uuid", "text").execute();
  await db.schema.alterTable("two_factor_challenges").addColumn("limited_to_workspace_uuid", "text").execute();
}
