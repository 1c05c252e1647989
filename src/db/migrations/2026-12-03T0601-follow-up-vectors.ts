/**
 * Follow-up answers get their own vector (issue 24: "each analysed answer (and follow-up answer)
 * stores its vector"; docs/insights.md "Follow-up answers"): `answers.follow_up_embeddings`, one
 * little-endian Float32 vector per entry of `follow_ups`, in that order and concatenated (a
 * follow-up left unanswered: zeros), made by the same engine as `embedding` (`embedding_engine`)
 * in the same analyse job. Null until analysed, and for answers without follow-ups. BLOB on
 * SQLite, bytea on PostgreSQL; derived data like `embedding`, so it goes with its answer.
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";
import { isPostgres } from "../dialect.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
  const bytes = isPostgres(db as Kysely<any>) ? "bytea" : "blob";
  await db.schema.alterTable("answers").addColumn("follow_up_embeddings", bytes).execute();
}
