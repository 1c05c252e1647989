/**
 * @module intake/intake-link
 * What every respondent request starts from (docs/intake.md; DESIGN §7): the intake slice of the
 * app's dependencies, the link found by its slugs with its workspace and questions, the link as
 * the page sees it, the session a `session_id` names, and the session's answers as the page sees
 * them. The one "may this session still write" check ({@link openSession}) is here.
 */
import type { Kysely, Transaction } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Database, Executor } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import type { BlobStore } from "../../blobs/store.ts";
import type { AppDeps } from "../../http/context.ts";
import type * as linksRepo from "../links/repository.ts";
import { isUuid } from "../../shared/uuid.ts";
import { completeSettings, type Settings } from "../links/model.ts";
import type { ClosedReason } from "../links/limits-model.ts";
import * as responsesRepo from "../responses/repository.ts";
import type { WorkspaceRow } from "../workspaces/repository.ts";
import * as intakeRepo from "./repository.ts";
import { publicFollowUps, type StoredFollowUp } from "./probing.ts";
import type { AnswerState, IntakeSession } from "./model.ts";
import { responseConsentOf } from "./consent.ts";
import { assertAccepting } from "./closing.ts";

/** What the intake service uses of the app: database, blob store, signed-URL inputs, nudges, clock. */
export type IntakeDeps = {
  db: Kysely<Database>;
  blobs: BlobStore;
  publicUrl: string;
  signingSecret: string;
  audioUrlTtlS: number;
  /** Tells the job runner that work was queued. */
  nudgeJobs: () => void;
  /** Tells the webhook dispatcher that events were queued. */
  nudgeOutbox: () => void;
  /** Decides whether a link's `close_at` has passed (DESIGN §13). */
  clock: Clock;
};

/** The intake slice of the app's dependencies. */
export function intakeDepsOf(deps: AppDeps): IntakeDeps {
  return {
    db: deps.db,
    blobs: deps.blobs,
    publicUrl: deps.config.publicUrl,
    signingSecret: deps.signingSecret,
    audioUrlTtlS: deps.config.audioUrlTtlS,
    nudgeJobs: deps.nudgeJobs,
    nudgeOutbox: deps.nudgeOutbox,
    clock: deps.clock,
  };
}

/** The link a respondent is on, with its workspace and its questions (in order). */
export type IntakeLink = { ws: WorkspaceRow; link: linksRepo.LinkRow; questions: linksRepo.QuestionRow[] };

/**
 * A new response's or answer's uuid: UUIDv7 (time-ordered, 74 random bits), so the answers' indexes
 * (all keyed by `response_uuid`) and primary keys grow at their right edge instead of dirtying a
 * random page each (docs/performance.md "Intake"). Session ids (credentials) stay fully random.
 */
export const newRowUuid = () => Bun.randomUUIDv7();

/**
 * Finds a link by workspace and link slug.
 * @throws AppError NOT_FOUND
 */
export async function findIntakeLink(db: Kysely<Database>, workspaceSlug: string, linkSlug: string): Promise<IntakeLink> {
  const found = await intakeRepo.findLinkBySlugs(db, workspaceSlug, linkSlug);
  if (!found) throw notFound("Link");
  return found;
}

/**
 * The link as the page needs it (no internal fields).
 * @param closed why the link takes no new sessions (intake/closing.ts `closedReason`), or null
 */
export function toPublicLink(l: IntakeLink, closed: ClosedReason | null = null) {
  return {
    uuid: l.link.uuid,
    name: l.link.name,
    status: l.link.status,
    is_closed: closed !== null,
    closed_reason: closed,
    settings: completeSettings({}, JSON.parse(l.link.settings) as Settings),
    /** Per language: name, description, thankYouMessage (issue 17); the page picks its language's. */
    translations: JSON.parse(l.link.translations || "{}") as Record<string, { name?: string; description?: string; thankYouMessage?: string }>,
    questions: l.questions.map((q) => ({
      uuid: q.uuid,
      prompt: q.prompt,
      response_type: q.type,
      field_key: q.field_key,
      order: q.order,
      required: q.required === 1,
      configuration: JSON.parse(q.configuration) as Record<string, unknown>,
      condition: JSON.parse(q.condition) as Record<string, unknown>,
      enable_dynamic_probing: q.enable_dynamic_probing === 1,
      fallback_to_text: q.fallback_to_text === 1,
      translations: JSON.parse(q.translations || "{}") as Record<string, { prompt?: string; options?: Record<string, string>; cards?: Record<string, string> }>,
    })),
  };
}

/** An answer row as the page sees it (no blob keys; follow-ups without their recordings). */
export function answerState(a: responsesRepo.AnswerRow): AnswerState {
  return {
    question_uuid: a.question_uuid,
    field_key: a.field_key,
    value: JSON.parse(a.value) as unknown,
    text: a.text,
    has_audio: a.audio_blob !== null,
    duration: a.duration,
    transcription_status: a.transcription_status,
    transcription: a.transcription,
    follow_ups: publicFollowUps(JSON.parse(a.follow_ups) as StoredFollowUp[]),
  };
}

/** The session (a response) with its answers, as `GET …/sessions/{session_id}/` answers it. */
export async function sessionView(db: Executor, r: responsesRepo.ResponseRow): Promise<IntakeSession> {
  const answers = await responsesRepo.answersOf(db, [r.uuid]);
  return {
    session_id: r.session_id,
    response_uuid: r.uuid,
    status: r.status,
    consent: responseConsentOf(r),
    answers: Object.fromEntries(answers.map((a) => [a.question_uuid, answerState(a)])),
  };
}

/**
 * The response a `session_id` names on this link, whatever its status.
 * @throws AppError NOT_FOUND (unknown session, or one of another link)
 */
export async function findSession(db: Executor, l: IntakeLink, sessionId: string) {
  const r = await intakeRepo.findResponseBySession(db, sessionId);
  if (!r || r.link_uuid !== l.link.uuid) throw notFound("Session");
  return r;
}

/**
 * The link's question with this uuid (the path parameter, hostile).
 * @throws AppError NOT_FOUND
 */
export function findQuestion(l: IntakeLink, questionUuid: string) {
  const q = isUuid(questionUuid) ? l.questions.find((x) => x.uuid === questionUuid) : undefined;
  if (!q) throw notFound("Question");
  return q;
}

/**
 * The session a respondent write goes to, inside that write's transaction: the link accepts
 * writes ({@link assertAccepting}) and the response is not submitted yet.
 * @throws AppError LINK_PAUSED, NOT_FOUND, ALREADY_SUBMITTED
 */
export async function openSession(trx: Transaction<Database>, l: IntakeLink, sessionId: string) {
  assertAccepting(l.link);
  const r = await findSession(trx, l, sessionId);
  if (r.status === "completed") throw new AppError("ALREADY_SUBMITTED", "This response was already submitted.");
  return r;
}
