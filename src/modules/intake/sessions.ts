/**
 * @module intake/sessions
 * A respondent's session (docs/intake.md; DESIGN §7, §13): starting it (a `started` response and
 * its `response.started` event, with an invitation, hidden fields and consent), the page's check of
 * an invitation, consent on an open session, and reading it back after a reload.
 */
import type { Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { queueResponseEvent as enqueueEvent } from "../responses/events.ts";
import type { Settings } from "../links/model.ts";
import * as responsesRepo from "../responses/repository.ts";
import { toResponseRecords } from "../responses/service.ts";
import * as intakeRepo from "./repository.ts";
import { writeBatcherOf } from "./write-batch.ts";
import { assertAccepting, refuseClosedLink } from "./closing.ts";
import { consentOf, recordConsent, type ResponseConsent } from "./consent.ts";
import { intakeSessionsStarted } from "../../metrics/instruments.ts";
import { bindInvitationToResponse, checkInvitation } from "../invitations/access.ts";
import { hiddenOfInvitation } from "../invitations/service.ts";
import { hiddenFieldsOf } from "../links/hidden-fields.ts";
import { findSession, type IntakeDeps, type IntakeLink, newRowUuid, openSession, sessionView } from "./intake-link.ts";

async function eventData(trx: Transaction<Database>, deps: IntakeDeps, l: IntakeLink, responseUuid: string) {
  const row = await responsesRepo.findResponseByUuid(trx, responseUuid);
  const [record] = await toResponseRecords(trx, deps, [row!]);
  return { workspace_uuid: l.ws.uuid, link: { uuid: l.link.uuid, name: l.link.name, slug: l.link.slug }, response: record! };
}

/**
 * Starts a respondent session (a `started` response) and queues `response.started`. With an
 * invitation (DESIGN §13) the response is bound to it; an invitation already bound to a started
 * response resumes that response instead (`resumed: true`, nothing new is created), even once the
 * link has closed (a response started before the limit can still be submitted). The response's
 * `hidden` values are the URL's, overlaid with those baked into the invitation (declared names only).
 * @param opts.hidden the session's hidden-field values, already checked (links/hidden-fields.ts)
 * @param opts.invitation the `invitation` token the respondent sent (hostile; checked here)
 * @param opts.consent the body's `consent` (`{language}` of the text agreed to), or undefined when none was sent
 * @throws AppError LINK_PAUSED, INVITATION_REQUIRED, INVITATION_USED, INVITATION_EXPIRED, INVITATION_REVOKED,
 *   LINK_CLOSED (close_at passed or response_limit reached; DESIGN §13),
 *   CONSENT_REQUIRED (`settings.consent.required_before: "start"` and no consent sent)
 */
export async function startSession(
  deps: IntakeDeps,
  l: IntakeLink,
  opts: { hidden?: Record<string, string>; invitation?: unknown; consent?: { language: string | null } } = {},
) {
  const { invitation, consent } = opts;
  assertAccepting(l.link);
  const access = { uuid: l.link.uuid, access: (JSON.parse(l.link.settings) as Settings).access ?? "open" };
  const invited = await checkInvitation(deps.db, deps.signingSecret, access, invitation, nowIso());
  if (!invited?.response_uuid) await refuseClosedLink(deps, l);
  const asked = consentOf(l);
  if (asked?.required_before === "start" && !consent && !invited?.response_uuid) {
    throw new AppError("CONSENT_REQUIRED", 'This link asks for the respondent\'s consent before starting: send {"consent": {"language": …}}.');
  }
  // An invitation's baked-in values win over the URL's; only names the link declares are kept.
  const declared = new Set(hiddenFieldsOf(JSON.parse(l.link.settings) as Settings));
  const baked = invited ? Object.entries(hiddenOfInvitation(invited)).filter(([name]) => declared.has(name)) : [];
  const hidden = { ...(opts.hidden ?? {}), ...Object.fromEntries(baked) };
  const view = await writeBatcherOf(deps.db).run(async (trx) => {
    const now = nowIso();
    const row: responsesRepo.ResponseRow = {
      uuid: newRowUuid(),
      workspace_uuid: l.ws.uuid,
      link_uuid: l.link.uuid,
      session_id: `ses_${crypto.randomUUID().replaceAll("-", "")}`,
      status: "started",
      respondent_email: null,
      date_created: now,
      date_updated: now,
      submitted_at: null,
      submitted_event_at: null,
      hidden: JSON.stringify(hidden),
    };
    if (invited) {
      // Bound before the insert: the start that loses the race creates nothing and resumes the winner's.
      const alive = async (uuid: string) => (await responsesRepo.findResponseByUuid(trx, uuid)) !== undefined;
      const boundTo = await bindInvitationToResponse(trx, invited, row.uuid, now, alive);
      if (boundTo) return { queued: null, resumed: true, view: await sessionView(trx, (await responsesRepo.findResponseByUuid(trx, boundTo))!) };
    }
    await intakeRepo.insertStartedResponse(trx, row);
    const given = asked && consent ? await recordConsent(trx, deps.clock, l, row.uuid, consent.language) : null;
    // The event's data is built only when a webhook is subscribed to it.
    const queued = await enqueueEvent(trx, {
      workspaceUuid: l.ws.uuid,
      linkUuid: l.link.uuid,
      type: "response.started",
      data: () => eventData(trx, deps, l, row.uuid),
    });
    // A new session has no answers yet.
    return { queued, resumed: false, view: { session_id: row.session_id, response_uuid: row.uuid, status: row.status, consent: given, answers: {} } };
  });
  if (view.resumed) return { ...view.view, resumed: true };
  intakeSessionsStarted.inc();
  if (view.queued) deps.nudgeOutbox();
  return { ...view.view, resumed: false };
}

/**
 * Why the intake page must not show the form for this `invitation` (DESIGN §13): the refusal a
 * session start would answer, or null (no invitation needed, or one that can start or resume).
 * @param invitation the page URL's `inv` (hostile)
 */
export async function invitationRefusalOf(deps: IntakeDeps, l: IntakeLink, invitation: string | null): Promise<AppError | null> {
  const access = { uuid: l.link.uuid, access: (JSON.parse(l.link.settings) as Settings).access ?? "open" };
  try {
    await checkInvitation(deps.db, deps.signingSecret, access, invitation, nowIso());
    return null;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

/**
 * Records the respondent's consent to the link's `settings.consent` on an open session
 * (`POST …/sessions/{session_id}/consent/`); agreeing again records the new time and text.
 * @param language the language whose translation of the text the page showed (null: the source text)
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR (the link asks for no consent)
 */
export async function giveConsent(deps: IntakeDeps, l: IntakeLink, sessionId: string, language: string | null): Promise<ResponseConsent> {
  return deps.db.transaction().execute(async (trx) => {
    const r = await openSession(trx, l, sessionId);
    return recordConsent(trx, deps.clock, l, r.uuid, language);
  });
}

/**
 * The session's state, for resuming after a reload.
 * @throws AppError NOT_FOUND
 */
export async function getSession(deps: IntakeDeps, l: IntakeLink, sessionId: string) {
  return sessionView(deps.db, await findSession(deps.db, l, sessionId));
}
