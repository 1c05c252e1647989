/**
 * Operators' corrections of an answer's insights (issue 16, docs/insights.md "Corrections"):
 * one row per correction, with who made it and when, the engine's original values and the new
 * ones. Rows go with their answer (erasure deletes the answer, the cascade deletes these).
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("insight_corrections")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull().references("workspaces.uuid").onDelete("cascade"))
    .addColumn("response_uuid", "text", (c) => c.notNull())
    .addColumn("answer_uuid", "text", (c) => c.notNull().references("answers.uuid").onDelete("cascade"))
    .addColumn("original_sentiment", "text", (c) => c.notNull())
    .addColumn("original_actionable", "integer", (c) => c.notNull())
    .addColumn("sentiment", "text", (c) => c.notNull())
    .addColumn("actionable", "integer", (c) => c.notNull())
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_uuid", "text", (c) => c.notNull())
    .addColumn("actor_name", "text", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("insight_corrections_answer").on("insight_corrections").columns(["answer_uuid", "date_created"]).execute();
  await db.schema.createIndex("insight_corrections_workspace").on("insight_corrections").columns(["workspace_uuid", "date_created"]).execute();
}
