/**
 * @module responses/reprocess
 * Queues transcription and analysis again (issue 12; DESIGN §9): `POST responses/{uuid}/reprocess/`
 * and `earshot reprocess`. An answer qualifies when its recording's transcription `failed` or is
 * `waiting_for_model`, or its analysis `failed`; one whose job is running now is left alone. Its
 * idle jobs are replaced by one fresh job (all attempts available), in one transaction. A response
 * whose `response.submitted` was already sent does not send it again (docs/api.md).
 */
import type { Kysely, Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { notFound } from "../../errors.ts";
import type { AuthContext, Authenticator } from "../../auth/authenticate.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { isUuid } from "../../shared/uuid.ts";
import * as repo from "./repository.ts";

export type ReprocessDeps = { db: Kysely<Database>; auth: Authenticator; nudgeJobs: () => void };

/** What was queued: one entry per answer. */
export type Reprocessed = { answer_uuid: string; job: "transcribe" | "analyse" }[];

/** Which answers to queue again: those waiting for the model, and failed ones when `includeFailed`. */
export type ReprocessScope = { workspaceUuid?: string; responseUuid?: string; includeFailed: boolean };

async function queueAgain(trx: Transaction<Database>, scope: ReprocessScope): Promise<Reprocessed> {
  const answers = await repo.answersToReprocess(trx, scope);
  const running = new Set(
    await repo.answersWithRunningJobs(
      trx,
      answers.map((a) => a.uuid),
    ),
  );
  const out: Reprocessed = [];
  const now = nowIso();
  for (const a of answers) {
    if (running.has(a.uuid)) continue;
    await repo.deleteIdleJobsOfAnswer(trx, a.uuid);
    const transcribe = a.audio_blob !== null && (a.transcription_status === "failed" || a.transcription_status === "waiting_for_model");
    if (transcribe) {
      await repo.updateAnswer(trx, a.uuid, { transcription_status: "pending", transcription_error: null, date_updated: now });
      await enqueueJob(trx, "transcribe", { answer_uuid: a.uuid });
    } else {
      await repo.updateAnswer(trx, a.uuid, { analysis_status: "pending", date_updated: now });
      await enqueueJob(trx, "analyse", { answer_uuid: a.uuid });
    }
    out.push({ answer_uuid: a.uuid, job: transcribe ? "transcribe" : "analyse" });
  }
  return out;
}

/**
 * Queues the failed or waiting answers of one response of the caller's workspace.
 * @returns `{ response_uuid, queued: [{answer_uuid, job}] }` (empty when nothing qualified)
 * @throws AppError NOT_FOUND (also malformed or foreign uuids), UNAUTHENTICATED (revoked meanwhile)
 */
export async function reprocessResponse(deps: ReprocessDeps, auth: AuthContext, uuid: string): Promise<{ response_uuid: string; queued: Reprocessed }> {
  const queued = await deps.db.transaction().execute(async (trx) => {
    const row = isUuid(uuid) ? await repo.findResponse(trx, auth.workspaceUuid, uuid) : undefined;
    if (!row) throw notFound("Response");
    const q = await queueAgain(trx, { workspaceUuid: auth.workspaceUuid, responseUuid: row.uuid, includeFailed: true });
    await deps.auth.assertActive(trx, auth);
    return q;
  });
  if (queued.length) deps.nudgeJobs();
  return { response_uuid: uuid, queued };
}

/**
 * `earshot reprocess`: every workspace's answers waiting for the model, plus failed ones with
 * `--failed`, or only those of `--response` (failed included). A running server picks the jobs up
 * at its next poll.
 * @returns the answers queued
 */
export function reprocessAnswers(db: Kysely<Database>, scope: ReprocessScope): Promise<Reprocessed> {
  return db.transaction().execute((trx) => queueAgain(trx, scope));
}
