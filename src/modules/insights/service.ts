/**
 * @module insights/service
 * Operators correct an answer's sentiment and actionable flag (issue 16, docs/insights.md
 * "Corrections"). Each correction is a row (who, when, the engine's original values, the new
 * ones); the answer's `ai_insights` then reads the corrected values with a `corrected` marker.
 * The corrections are also labelled answers for `earshot insights train`.
 */
import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { AuthContext } from "../../auth/authenticate.ts";
import type { Database } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import type { LabelledAnswer } from "../../ai/insights/trained/train.ts";
import type { Sentiment } from "../../ai/insights/types.ts";
import type { CorrectedInsights, CorrectInsightsBody } from "./model.ts";
import * as repo from "./repository.ts";
import { isUuid } from "../../shared/uuid.ts";
import { moveAnswer } from "../themes/service.ts";

type Insights = NonNullable<CorrectedInsights["ai_insights"]>;
type StoredInsights = Insights | (Omit<Insights, "corrected"> & { corrected?: undefined });

/**
 * Records a correction and applies it to the answer's `ai_insights`.
 * @param recheck runs first inside the transaction: the caller's revocation re-check
 *   (`Authenticator.assertActive`), so a key revoked or a member removed meanwhile writes nothing.
 * @param now ISO 8601 time of the correction.
 * @returns the answer's uuid and its insights as they now read.
 * @throws AppError NOT_FOUND when the response is not in the caller's workspace or the answer is
 *   not one of its answers (also malformed uuids); INSIGHTS_NOT_READY when the answer has no
 *   insights yet.
 */
export async function correctInsights(
  db: Kysely<Database>,
  auth: AuthContext,
  responseUuid: string,
  answerUuid: string,
  body: CorrectInsightsBody,
  recheck?: (trx: Transaction<Database>) => Promise<void>,
  now = new Date().toISOString(),
): Promise<CorrectedInsights> {
  if (!isUuid(responseUuid) || !isUuid(answerUuid)) throw notFound("Answer");
  return db.transaction().execute(async (trx) => {
    await recheck?.(trx);
    const answer = await repo.findAnswerInWorkspace(trx, auth.workspaceUuid, responseUuid, answerUuid);
    if (!answer) throw notFound("Answer");
    // Moving an answer between themes (DESIGN §12) needs no insights; correcting them does.
    const theme = body.theme_uuid !== undefined ? { theme: await moveAnswer(trx, answer, body.theme_uuid) } : {};
    if (body.sentiment === undefined && body.actionable === undefined) {
      return { answer_uuid: answer.uuid, ai_insights: answer.ai_insights ? (JSON.parse(answer.ai_insights) as Insights) : null, ...theme };
    }
    if (!answer.ai_insights) throw new AppError("INSIGHTS_NOT_READY", "This answer has no insights to correct yet.");
    const current = JSON.parse(answer.ai_insights) as StoredInsights;
    const original = current.corrected?.original ?? { sentiment: current.sentiment, actionable: current.actionable };
    const sentiment: Sentiment = body.sentiment ?? current.sentiment;
    const actionable = body.actionable ?? current.actionable;
    await repo.insertCorrection(trx, {
      uuid: randomUUID(),
      workspace_uuid: auth.workspaceUuid,
      response_uuid: answer.response_uuid,
      answer_uuid: answer.uuid,
      original_sentiment: original.sentiment,
      original_actionable: original.actionable ? 1 : 0,
      sentiment,
      actionable: actionable ? 1 : 0,
      actor_type: auth.actor.type,
      actor_uuid: auth.actor.uuid,
      actor_name: auth.actor.name,
      date_created: now,
    });
    const updated = {
      ...current,
      sentiment,
      actionable,
      corrected: { by: { type: auth.actor.type, uuid: auth.actor.uuid, name: auth.actor.name }, at: now, original },
    };
    await repo.updateAnswerInsights(trx, answer.uuid, JSON.stringify(updated), now);
    return { answer_uuid: answer.uuid, ai_insights: updated, ...theme };
  });
}

/**
 * The corrections as labelled answers (the latest correction of each answer), for training and
 * evaluation.
 * @param workspaceUuid one workspace, or null for every workspace on the box.
 * @returns answers whose text is not empty, in the order they were first corrected.
 */
export async function correctionsAsLabelled(db: Kysely<Database>, workspaceUuid: string | null): Promise<LabelledAnswer[]> {
  const latest = new Map<string, LabelledAnswer>();
  for (const row of await repo.listCorrectionsWithText(db, workspaceUuid)) {
    const text = (row.transcription ?? row.text ?? "").trim();
    if (text === "") continue;
    latest.set(row.answer_uuid, { id: row.answer_uuid, text, sentiment: row.sentiment, actionable: row.actionable === 1 });
  }
  return [...latest.values()];
}
