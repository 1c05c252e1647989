/**
 * @module insights/repository
 * Kysely queries of the insights corrections (table `insight_corrections`).
 */
import type { InsightCorrectionTable, Executor } from "../../db/schema.ts";

/** The answer with its response's workspace, or undefined. */
export function findAnswerInWorkspace(db: Executor, workspaceUuid: string, responseUuid: string, answerUuid: string) {
  return db
    .selectFrom("answers")
    .innerJoin("responses", "responses.uuid", "answers.response_uuid")
    .select(["answers.uuid", "answers.response_uuid", "answers.ai_insights", "answers.question_uuid", "responses.link_uuid"])
    .where("responses.workspace_uuid", "=", workspaceUuid)
    .where("responses.uuid", "=", responseUuid)
    .where("answers.uuid", "=", answerUuid)
    .executeTakeFirst();
}

/** Inserts one correction row. */
export async function insertCorrection(db: Executor, row: InsightCorrectionTable): Promise<void> {
  await db.insertInto("insight_corrections").values(row).execute();
}

/** Replaces an answer's ai_insights JSON. */
export async function updateAnswerInsights(db: Executor, answerUuid: string, aiInsights: string, now: string): Promise<void> {
  await db.updateTable("answers").set({ ai_insights: aiInsights, date_updated: now }).where("uuid", "=", answerUuid).execute();
}

/**
 * Every correction with its answer's text (the transcript for voice answers), oldest first;
 * one workspace, or all when `workspaceUuid` is null.
 */
export function listCorrectionsWithText(db: Executor, workspaceUuid: string | null) {
  let q = db
    .selectFrom("insight_corrections")
    .innerJoin("answers", "answers.uuid", "insight_corrections.answer_uuid")
    .select([
      "insight_corrections.answer_uuid",
      "insight_corrections.sentiment",
      "insight_corrections.actionable",
      "insight_corrections.date_created",
      "answers.text",
      "answers.transcription",
    ])
    .orderBy("insight_corrections.date_created")
    .orderBy("insight_corrections.uuid");
  if (workspaceUuid) q = q.where("insight_corrections.workspace_uuid", "=", workspaceUuid);
  return q.execute();
}
