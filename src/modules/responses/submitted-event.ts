/**
 * @module responses/submitted-event
 * "The response is ready → queue its event" (DESIGN §8): `response.submitted` waits until a
 * completed response has no answer left to transcribe or analyse, so the payload carries the
 * transcripts and insights. Called by submission (intake) when nothing is left to process, and by
 * the job that finishes a response's last answer (processing.ts), in that write's transaction.
 */
import type { Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { queueAlertsForResponse } from "../alerts/fire.ts";
import * as linksRepo from "../links/repository.ts";
import { queueResponseEvent as enqueueEvent } from "./events.ts";
import * as responsesRepo from "./repository.ts";
import { type ResponseDeps, toResponseRecords } from "./service.ts";

/**
 * Queues `response.submitted` once a completed response has no answer left to transcribe or
 * analyse (DESIGN §8), exactly once. Call inside the transaction that finished the last answer.
 * Alerts of the link's rules are matched and queued here too (alerts/fire.ts).
 * @returns true when the event was queued now for at least one webhook, or an alert was queued (nudge the dispatcher)
 */
export async function queueSubmittedEventIfReady(
  trx: Transaction<Database>,
  deps: Pick<ResponseDeps, "publicUrl" | "signingSecret" | "audioUrlTtlS">,
  responseUuid: string,
): Promise<boolean> {
  const r = await responsesRepo.findResponseByUuid(trx, responseUuid);
  if (!r || r.status !== "completed" || r.submitted_event_at) return false;
  if ((await responsesRepo.countUnprocessedAnswers(trx, responseUuid)) > 0) return false;
  await responsesRepo.updateResponse(trx, responseUuid, { submitted_event_at: nowIso() });
  // Alerts fire at the same moment, in the same transaction (issue 28; alerts/fire.ts).
  const alerts = await queueAlertsForResponse(trx, {
    workspaceUuid: r.workspace_uuid,
    linkUuid: r.link_uuid,
    linkName: async () => (await linksRepo.findLink(trx, r.workspace_uuid, r.link_uuid))?.name ?? "",
    responseUuid,
    publicUrl: deps.publicUrl,
  });
  const queued = await enqueueEvent(trx, {
    workspaceUuid: r.workspace_uuid,
    linkUuid: r.link_uuid,
    type: "response.submitted",
    data: async () => {
      const link = await linksRepo.findLink(trx, r.workspace_uuid, r.link_uuid);
      const [record] = await toResponseRecords(trx, deps, [r]);
      return {
        workspace_uuid: r.workspace_uuid,
        link: link ? { uuid: link.uuid, name: link.name, slug: link.slug } : { uuid: r.link_uuid, name: null, slug: null },
        response: { ...record!, answers: record!.answers },
      };
    },
  });
  return queued !== null || alerts > 0;
}
