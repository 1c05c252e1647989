/**
 * The PostgreSQL blob store (`src/blobs/postgres.ts`, DESIGN §11): on PostgreSQL recordings and
 * uploaded files live in the database, so nodes share nothing but it. `blobs` has one row per
 * blob (`complete` = 0 while it is being written; a crash leaves such a row for the orphan sweep),
 * `blob_chunks` its bytes in order, 256 KiB per row, deleted with their blob. Chunks are stored
 * uncompressed (`STORAGE EXTERNAL`): audio is compressed already. On SQLite this does nothing
 * (blobs stay files under `<data_dir>/blobs`). Frozen: never edit, add a new migration.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db as Kysely<any>)) return;
  await db.schema
    .createTable("blobs")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("size", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("chunks", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("complete", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("date_created", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("blob_chunks")
    .addColumn("key", "text", (c) => c.notNull().references("blobs.key").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("data", "bytea", (c) => c.notNull())
    .addPrimaryKeyConstraint("blob_chunks_pkey", ["key", "seq"])
    .execute();
  await sql`alter table blob_chunks alter column data set storage external`.execute(db);
}
