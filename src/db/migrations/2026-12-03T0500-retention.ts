/**
 * Retention (issue 25, DESIGN §13; docs/privacy.md "Retention"): the workspace's default policy
 * (`workspaces.retention`, JSON of `{delete_responses_after_days, delete_audio_after_days,
 * delete_audio_after_transcription, delete_after_delivery}` or null when none), and the time a
 * recording was dropped by retention while its transcript stays (`answers.audio_deleted_at`).
 * The index serves a run's selection of a workspace's submitted responses by age (the workspace
 * default covers every link without an override, so it cannot go through `responses_link_submitted`).
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("workspaces").addColumn("retention", "text").execute();
  await db.schema.alterTable("answers").addColumn("audio_deleted_at", "text").execute();
  await db.schema.createIndex("responses_workspace_submitted").on("responses").columns(["workspace_uuid", "status", "submitted_at"]).execute();
}
