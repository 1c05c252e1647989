/**
 * @module intake/submit
 * Submission (`POST …/submit/`; docs/intake.md; DESIGN §7, §8): the required questions that are
 * visible under the conditions, then in one transaction the invitation used, a `transcribe` job per
 * recording, an `analyse` job per open answer, the response completed — and `response.submitted`
 * at once when nothing is left to process (otherwise the last job queues it).
 */
import { nowIso } from "../../clock.ts";
import { AppError, type FieldError } from "../../errors.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import type { Settings } from "../links/model.ts";
import { isOpenType } from "../../shared/question-types.ts";
import { isVisible } from "../../shared/conditions.ts";
import * as responsesRepo from "../responses/repository.ts";
import { redactionPolicyOf } from "../responses/redaction.ts";
import { queueSubmittedEventIfReady } from "../responses/submitted-event.ts";
import { useInvitationOf } from "../invitations/access.ts";
import { intakeSessionsSubmitted } from "../../metrics/instruments.ts";
import * as intakeRepo from "./repository.ts";
import { isBlankValue } from "./answer-values.ts";
import { writeBatcherOf } from "./write-batch.ts";
import { type IntakeDeps, type IntakeLink, openSession } from "./intake-link.ts";

/**
 * Completes the response: enforces `required` for visible questions, queues a transcription
 * job per recording and an analysis job per free-text answer, and queues `response.submitted`
 * at once when there is nothing to process — all in one transaction.
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR (pointers `/answers/{field_key}`)
 */
export async function submitSession(deps: IntakeDeps, l: IntakeLink, sessionId: string) {
  let jobs = 0;
  let eventQueued = false;
  await writeBatcherOf(deps.db).run(async (trx) => {
    // The batcher may run this function again (intake/write-batch.ts): count from zero each time.
    jobs = 0;
    eventQueued = false;
    const r = await openSession(trx, l, sessionId);
    const answers = await responsesRepo.answersOf(trx, [r.uuid]);
    const byQuestion = new Map(answers.map((a) => [a.question_uuid, a]));
    // Conditions may test hidden fields (issue 25): their values are known from the start.
    const values = new Map<string, unknown>(Object.entries(JSON.parse(r.hidden ?? "{}") as Record<string, string>));
    const errors: FieldError[] = [];
    for (const q of l.questions) {
      const a = byQuestion.get(q.uuid);
      const visible = isVisible(JSON.parse(q.condition), values);
      const answered = a !== undefined && (a.audio_blob !== null || a.file_blob !== null || !isBlankValue(JSON.parse(a.value)));
      if (visible && answered) values.set(q.field_key, JSON.parse(a!.value));
      if (visible && q.required === 1 && !answered) errors.push({ pointer: `/answers/${q.field_key}`, message: "This question requires an answer." });
    }
    if (errors.length) throw new AppError("VALIDATION_ERROR", "Some required questions are unanswered.", { errors });
    const now = nowIso();
    // The first write of the unit (a refusal before it leaves the batch alone): the invitation is used.
    await useInvitationOf(trx, r.uuid, now);
    for (const a of answers) {
      if (a.audio_blob && a.transcription_status !== "completed") {
        await intakeRepo.markAnswerPending(trx, a.uuid, "transcription", now);
        // The link's redaction choice rides along: the job still masks if the link is deleted meanwhile.
        await enqueueJob(trx, "transcribe", { answer_uuid: a.uuid, redact_pii: redactionPolicyOf(l.link.settings) !== null });
        jobs++;
      } else if (isOpenType(a.response_type) && a.text) {
        await intakeRepo.markAnswerPending(trx, a.uuid, "analysis", now);
        await enqueueJob(trx, "analyse", { answer_uuid: a.uuid });
        jobs++;
      }
    }
    await intakeRepo.completeResponse(trx, r.uuid, now);
    // With a job queued, an answer is still pending, so the event waits for the last job (which
    // calls queueSubmittedEventIfReady); no need to read the response and count again here.
    if (!jobs) eventQueued = await queueSubmittedEventIfReady(trx, deps, r.uuid);
  });
  intakeSessionsSubmitted.inc();
  // Wake the job runner and the dispatcher only for work they have (each wake-up runs a claim query).
  if (jobs) deps.nudgeJobs();
  if (eventQueued) deps.nudgeOutbox();
  const settings = JSON.parse(l.link.settings) as Settings;
  return { status: "completed" as const, thank_you_message: settings.thankYouMessage, redirect_url: settings.redirectUrl };
}
