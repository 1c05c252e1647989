/**
 * Images an operator uploads for image-choice cards (issue 26; docs/api.md "Images"): one row per
 * image with its bytes (SQLite BLOB, PostgreSQL bytea; at most 5 MiB, PNG, JPEG, WebP or GIF as
 * judged by the bytes), the workspace that uploaded it and the sniffed content type. The bytes
 * live in the database rather than the blob store, so `earshot backup`, restore and
 * `migrate-to-postgres` carry them with no list of their own, and the intake purge (which deletes
 * blobs no answer references) leaves them alone. Frozen: never edit, add a new migration.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("media_images")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("bytes", isPostgres(db) ? sql`bytea` : sql`blob`, (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("media_images_workspace").on("media_images").columns(["workspace_uuid", "date_created"]).execute();
}
