/**
 * Personal, single-use invitations to a link (issue 25; DESIGN §13; docs/api.md "Invitations"):
 * one row per invitation with the hidden-field values baked into it, its expiry, its revocation,
 * and the response it started (`response_uuid`, unique: one invitation starts at most one
 * response) and when that response was submitted. The token in the URL is not stored: it is an
 * HMAC of the uuid under the instance's signing secret (docs/decisions/invitations.md).
 * Frozen: never edit, add a new migration.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("invitations")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull())
    .addColumn("link_uuid", "text", (c) => c.notNull())
    .addColumn("hidden", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("expires_at", "text")
    .addColumn("revoked_at", "text")
    .addColumn("response_uuid", "text", (c) => c.unique())
    .addColumn("started_at", "text")
    .addColumn("submitted_at", "text")
    .addColumn("date_created", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("invitations_link").on("invitations").columns(["link_uuid", "date_created"]).execute();
}
