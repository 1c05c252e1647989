/**
 * @module intake/closing
 * When a link takes no respondent writes: it is paused ({@link assertAccepting}, every write), or
 * it takes no new sessions (issue 25, DESIGN §13, docs/api.md "Closing a link"): its `close_at` has
 * passed or `response_limit` responses were submitted. Only a new session is refused when closed;
 * a session started while the link was open keeps saving answers and may submit.
 */
import type { Kysely } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { closedReasonOf, type ClosedReason } from "../links/limits-model.ts";
import * as linksRepo from "../links/repository.ts";

type ClosingLink = { link: { uuid: string; settings: string } };

/**
 * Refuses any respondent write (a session, an answer, an upload, a follow-up, live transcription,
 * submission) while the link is not `active`: the one "link paused" check.
 * @throws AppError LINK_PAUSED
 */
export function assertAccepting(link: { status: string }): void {
  if (link.status !== "active") throw new AppError("LINK_PAUSED", "This link is not accepting responses.");
}

/**
 * Why the link is closed now, or null while it takes new sessions. Counts the submitted
 * responses only when the link has a `response_limit`.
 */
export async function closedReason(deps: { db: Kysely<Database>; clock: Clock }, l: ClosingLink): Promise<ClosedReason | null> {
  const settings = JSON.parse(l.link.settings) as { close_at?: string | null; response_limit?: number | null };
  const now = deps.clock.nowIso();
  if (settings.response_limit == null) return closedReasonOf(settings, 0, now);
  const submitted = (await linksRepo.responseCounts(deps.db, [l.link.uuid])).get(l.link.uuid) ?? 0;
  return closedReasonOf(settings, submitted, now);
}

/**
 * Refuses a new session on a closed link.
 * @throws AppError LINK_CLOSED
 */
export async function refuseClosedLink(deps: { db: Kysely<Database>; clock: Clock }, l: ClosingLink): Promise<void> {
  const reason = await closedReason(deps, l);
  if (reason === "close_at") throw new AppError("LINK_CLOSED", "This link closed and accepts no new responses.");
  if (reason === "response_limit") throw new AppError("LINK_CLOSED", "This link received all the responses it accepts.");
}
