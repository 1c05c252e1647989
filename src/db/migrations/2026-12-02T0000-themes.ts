/**
 * Themes across responses (issue 24, DESIGN §12, docs/api.md "Themes"):
 * - `answers` gain `embedding` (the answer's vector as little-endian Float32 bytes: derived data,
 *   400 bytes with the default 100-d engine; BLOB on SQLite, bytea on PostgreSQL), the engine id
 *   it came from, its theme (`theme_uuid`, and `theme_source`: `auto` from the engine, `operator`
 *   when an operator moved it — kept across rebuilds), and Whisper's `segments` (JSON
 *   `[{start_s, end_s, text}]`, voice answers).
 * - `themes`: one row per theme of one open question of one link; sizes, sentiment, weeks and
 *   quotes are computed from the answers when read, so they never drift.
 * - `theme_builds`: the build state per question (what assignment needs between rebuilds).
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";
import { isPostgres } from "../dialect.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
  const bytes = isPostgres(db as Kysely<any>) ? "bytea" : "blob";
  await db.schema.alterTable("answers").addColumn("embedding", bytes).execute();
  await db.schema.alterTable("answers").addColumn("embedding_engine", "text").execute();
  await db.schema.alterTable("answers").addColumn("theme_uuid", "text").execute();
  await db.schema.alterTable("answers").addColumn("theme_source", "text").execute();
  await db.schema.alterTable("answers").addColumn("segments", "text").execute();
  await db.schema.createIndex("answers_theme").on("answers").columns(["theme_uuid"]).execute();
  await db.schema
    .createTable("themes")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull().references("workspaces.uuid").onDelete("cascade"))
    .addColumn("link_uuid", "text", (c) => c.notNull())
    .addColumn("question_uuid", "text", (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("label_source", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("pinned", "integer", (c) => c.notNull().defaultTo(0))
    // 1: an operator created it, moved answers into it or merged into it: never discarded by a rebuild.
    .addColumn("operator", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("keyphrases", "text", (c) => c.notNull().defaultTo("[]"))
    // JSON [{answer_uuid, text}] chosen by the last build (spans and URLs are added when read).
    .addColumn("quotes", "text", (c) => c.notNull().defaultTo("[]"))
    // JSON [answer_uuid]: an operator's example answers (they attract answers near them).
    .addColumn("examples", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("centre", bytes)
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("themes_question").on("themes").columns(["link_uuid", "question_uuid"]).execute();
  await db.schema
    .createTable("theme_builds")
    .addColumn("link_uuid", "text", (c) => c.notNull())
    .addColumn("question_uuid", "text", (c) => c.notNull())
    .addColumn("workspace_uuid", "text", (c) => c.notNull().references("workspaces.uuid").onDelete("cascade"))
    .addColumn("engine", "text")
    // The common components the build removed, concatenated Float32 bytes (ThemeModel.components).
    .addColumn("components", bytes)
    .addColumn("threshold", isPostgres(db as Kysely<any>) ? "double precision" : "real", (c) => c.notNull().defaultTo(0))
    // Analysed answers the last build saw; the rebuild rule compares the count since.
    .addColumn("answers_built", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("answers_since", "integer", (c) => c.notNull().defaultTo(0))
    // 1 while a rebuild job is queued or running: one rebuild per question at a time.
    .addColumn("rebuild_queued", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("built_at", "text")
    .addColumn("date_updated", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("theme_builds_pkey", ["link_uuid", "question_uuid"])
    .execute();
}
