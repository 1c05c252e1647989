/**
 * @module intake/answers
 * Answers saved as they are given (docs/intake.md; DESIGN §7): the one upsert of an answer row
 * (typed answers and uploads alike) and `PUT …/answers/{question_uuid}/` for typed values, masked
 * before they are written when the link redacts.
 */
import type { Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import type * as linksRepo from "../links/repository.ts";
import { isOpenType, type QuestionType } from "../../shared/question-types.ts";
import * as responsesRepo from "../responses/repository.ts";
import { maskText, redactionPolicyOf } from "../responses/redaction.ts";
import * as intakeRepo from "./repository.ts";
import { checkAnswerValue } from "./answer-values.ts";
import { writeBatcherOf } from "./write-batch.ts";
import { answerState, findQuestion, type IntakeDeps, type IntakeLink, newRowUuid, openSession } from "./intake-link.ts";

/** Inserts or updates the answer row of (response, question) with `patch`. */
export async function upsertAnswer(
  trx: Transaction<Database>,
  r: responsesRepo.ResponseRow,
  q: linksRepo.QuestionRow,
  patch: Partial<responsesRepo.AnswerRow>,
) {
  const now = nowIso();
  const existing = await intakeRepo.findAnswerOf(trx, r.uuid, q.uuid);
  if (existing) {
    await responsesRepo.updateAnswer(trx, existing.uuid, { ...patch, date_updated: now });
    return { ...existing, ...patch };
  }
  const row: responsesRepo.AnswerRow = {
    ...responsesRepo.blankAnswerRow(
      {
        uuid: newRowUuid(),
        response_uuid: r.uuid,
        question_uuid: q.uuid,
        field_key: q.field_key,
        response_type: q.type,
        question_text: q.prompt,
        position: q.order * 1000 + q.position,
      },
      now,
    ),
    ...patch,
  };
  await intakeRepo.insertAnswer(trx, row);
  return row;
}

/**
 * Saves a typed answer (`PUT …/answers/{question_uuid}/`).
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR
 */
export async function saveAnswer(deps: IntakeDeps, l: IntakeLink, sessionId: string, questionUuid: string, value: unknown) {
  const q = findQuestion(l, questionUuid);
  const checked = checkAnswerValue(
    { type: q.type as QuestionType, configuration: JSON.parse(q.configuration), field_key: q.field_key, fallback_to_text: q.fallback_to_text === 1 },
    value,
  );
  // Typed free text (a text answer or a voice question's typed fallback) is masked here, on the
  // HTTP thread, before anything is written when the link redacts (issue 25; responses/redaction.ts).
  if (isOpenType(q.type) && typeof checked.value === "string") {
    const policy = redactionPolicyOf(l.link.settings);
    if (policy) {
      const masked = maskText(checked.value, policy);
      checked.value = masked;
      checked.text = masked;
    }
  }
  // Group commit with the other respondents' writes (intake/write-batch.ts); settles after COMMIT.
  return writeBatcherOf(deps.db).run(async (trx) => {
    const r = await openSession(trx, l, sessionId);
    const row = await upsertAnswer(trx, r, q, { value: JSON.stringify(checked.value), text: checked.text });
    if (q.type === "email") await responsesRepo.updateResponse(trx, r.uuid, { respondent_email: checked.value as string | null, date_updated: nowIso() });
    return answerState(row);
  });
}
