/**
 * @module intake/service
 * The respondent's side (docs/intake.md; DESIGN §7, §9): sessions, answers saved as they are
 * given, audio and file uploads, and submission — which enqueues the transcription jobs and
 * webhook events in the same transaction that completes the response.
 */
import type { Kysely, Transaction } from "kysely";
import { nowIso, type Clock } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError, notFound, type FieldError } from "../../errors.ts";
import type { BlobStore } from "../../blobs/store.ts";
import type { AppDeps } from "../../http/context.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { queueWebhookEvent as enqueueEvent } from "../webhooks/events.ts";
import * as linksRepo from "../links/repository.ts";
import { isUuid } from "../../shared/uuid.ts";
import { completeSettings, type Settings } from "../links/model.ts";
import type { ClosedReason } from "../links/limits-model.ts";
import type { QuestionType } from "../links/question-model.ts";
import * as responsesRepo from "../responses/repository.ts";
import { toResponseRecords } from "../responses/service.ts";
import type { WorkspaceRow } from "../workspaces/repository.ts";
import * as intakeRepo from "./repository.ts";
import { checkAnswerValue, isBlankValue } from "./answer-values.ts";
import { isVisible } from "../../shared/conditions.ts";
import { publicFollowUps, type StoredFollowUp } from "./probing.ts";
import type { AnswerState, IntakeSession } from "./model.ts";
import { allowedTypesAccept, extensionMatches, sniffFile } from "../../http/media.ts";
import { blobsOfAnswer, checkRecordingUpload, replacedBlobReset } from "./recordings.ts";
import { writeBatcherOf } from "./write-batch.ts";
import { maskText, redactionPolicyOf } from "./redaction.ts";
import { refuseClosedLink } from "./closing.ts";
import { consentOf, recordConsent, requireRecordingConsent, responseConsentOf, type ResponseConsent } from "./consent.ts";
import { intakeSessionsStarted, intakeSessionsSubmitted } from "../../metrics/instruments.ts";
import { bindInvitationToResponse, checkInvitation, useInvitationOf } from "../invitations/access.ts";
import { hiddenOfInvitation } from "../invitations/service.ts";
import { hiddenFieldsOf } from "../links/hidden-fields.ts";

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

export type IntakeLink = { ws: WorkspaceRow; link: linksRepo.LinkRow; questions: linksRepo.QuestionRow[] };

/**
 * A new response's or answer's uuid: UUIDv7 (time-ordered, 74 random bits), so the answers' indexes
 * (all keyed by `response_uuid`) and primary keys grow at their right edge instead of dirtying a
 * random page each (docs/performance.md "Intake"). Session ids (credentials) stay fully random.
 */
const newRowUuid = () => Bun.randomUUIDv7();

const VOICE_TYPES = new Set<QuestionType>(["voice", "voice_text_fallback"]);
const FREE_TEXT_TYPES = new Set<QuestionType>(["voice", "voice_text_fallback", "text"]);

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

function answerState(a: responsesRepo.AnswerRow): AnswerState {
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

async function sessionView(db: Kysely<Database> | Transaction<Database>, r: responsesRepo.ResponseRow): Promise<IntakeSession> {
  const answers = await responsesRepo.answersOf(db, [r.uuid]);
  return {
    session_id: r.session_id,
    response_uuid: r.uuid,
    status: r.status,
    consent: responseConsentOf(r),
    answers: Object.fromEntries(answers.map((a) => [a.question_uuid, answerState(a)])),
  };
}

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
  if (l.link.status !== "active") throw new AppError("LINK_PAUSED", "This link is not accepting responses.");
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

async function findSession(db: Kysely<Database> | Transaction<Database>, l: IntakeLink, sessionId: string) {
  const r = await intakeRepo.findResponseBySession(db, sessionId);
  if (!r || r.link_uuid !== l.link.uuid) throw notFound("Session");
  return r;
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

function findQuestion(l: IntakeLink, questionUuid: string) {
  const q = isUuid(questionUuid) ? l.questions.find((x) => x.uuid === questionUuid) : undefined;
  if (!q) throw notFound("Question");
  return q;
}

async function openSession(trx: Transaction<Database>, l: IntakeLink, sessionId: string) {
  if (l.link.status !== "active") throw new AppError("LINK_PAUSED", "This link is not accepting responses.");
  const r = await findSession(trx, l, sessionId);
  if (r.status === "completed") throw new AppError("ALREADY_SUBMITTED", "This response was already submitted.");
  return r;
}

/** Inserts or updates the answer row of (response, question) with `patch`. */
async function upsertAnswer(trx: Transaction<Database>, r: responsesRepo.ResponseRow, q: linksRepo.QuestionRow, patch: Partial<responsesRepo.AnswerRow>) {
  const now = nowIso();
  const existing = await intakeRepo.findAnswerOf(trx, r.uuid, q.uuid);
  if (existing) {
    await responsesRepo.updateAnswer(trx, existing.uuid, { ...patch, date_updated: now });
    return { ...existing, ...patch };
  }
  const row: responsesRepo.AnswerRow = {
    uuid: newRowUuid(),
    response_uuid: r.uuid,
    question_uuid: q.uuid,
    field_key: q.field_key,
    response_type: q.type,
    question_text: q.prompt,
    position: q.order * 1000 + q.position,
    value: "null",
    text: null,
    audio_blob: null,
    audio_mime: null,
    file_blob: null,
    file_meta: null,
    transcription: null,
    transcription_status: "not_applicable",
    transcription_error: null,
    duration: null,
    ai_insights: null,
    analysis_engine: null,
    analysis_status: "not_applicable",
    follow_ups: "[]",
    custom_fields: "{}",
    date_created: now,
    date_updated: now,
    ...patch,
  };
  await intakeRepo.insertAnswer(trx, row);
  return row;
}

export type UploadKind = "audio" | "file" | "follow-up";

/**
 * Admits an upload before its body is read: the link is active, the session open, and the question
 * takes this kind of upload (a follow-up recording's question is checked when it is saved).
 * @returns the session's response row and the question's configuration
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR (wrong kind of question)
 */
export async function admitUpload(deps: IntakeDeps, l: IntakeLink, sessionId: string, questionUuid: string, kind: UploadKind) {
  const q = findQuestion(l, questionUuid);
  if (kind === "audio" && !VOICE_TYPES.has(q.type as QuestionType)) throw new AppError("VALIDATION_ERROR", "This question does not take a recording.");
  if (kind === "file" && q.type !== "file_upload") throw new AppError("VALIDATION_ERROR", "This question does not take a file.");
  if (l.link.status !== "active") throw new AppError("LINK_PAUSED", "This link is not accepting responses.");
  const response = await findSession(deps.db, l, sessionId);
  if (response.status === "completed") throw new AppError("ALREADY_SUBMITTED", "This response was already submitted.");
  if (kind !== "file") requireRecordingConsent(l, response);
  return { response, configuration: JSON.parse(q.configuration) as Record<string, unknown> };
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
  // HTTP thread, before anything is written when the link redacts (issue 25; intake/redaction.ts).
  if (FREE_TEXT_TYPES.has(q.type as QuestionType) && typeof checked.value === "string") {
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

/**
 * Stores a recording for a voice question (`POST …/audio/`); transcription is queued on submit.
 * @param bytes the recording, already checked for size and format by the route
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR (not a voice question),
 *   AUDIO_TOO_LONG, UNSUPPORTED_MEDIA_TYPE (see intake/recordings.ts)
 */
export async function saveAudio(
  deps: IntakeDeps,
  l: IntakeLink,
  sessionId: string,
  questionUuid: string,
  bytes: Uint8Array,
  mime: string,
  durationS: number | null,
) {
  const q = findQuestion(l, questionUuid);
  if (!VOICE_TYPES.has(q.type as QuestionType)) throw new AppError("VALIDATION_ERROR", "This question does not take a recording.");
  await checkRecordingUpload(bytes, q);
  const maxS = Number(JSON.parse(q.configuration).max_duration ?? 120);
  const duration = durationS === null ? null : Math.min(durationS, maxS + 1);
  const key = await deps.blobs.put("audio", bytes);
  return replaceAnswerBlob(deps, l, sessionId, q, key, { audio_blob: key, audio_mime: mime, duration, transcription_status: "pending" });
}

/**
 * Writes a new recording or file (`key`, already stored) into the answer of (session, `q`) with
 * `patch` over {@link replacedBlobReset}: nothing derived from the replaced bytes survives (issue 22
 * item 3). The replaced answer's blobs (recording, file, follow-up recordings) are deleted after
 * the commit; on failure the new blob is deleted instead.
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED
 */
async function replaceAnswerBlob(
  deps: IntakeDeps,
  l: IntakeLink,
  sessionId: string,
  q: linksRepo.QuestionRow,
  key: string,
  patch: Partial<responsesRepo.AnswerRow>,
): Promise<AnswerState> {
  let replaced: string[] = [];
  let state: AnswerState;
  try {
    state = await deps.db.transaction().execute(async (trx) => {
      const r = await openSession(trx, l, sessionId);
      const previous = await intakeRepo.findAnswerOf(trx, r.uuid, q.uuid);
      replaced = blobsOfAnswer(previous);
      // A first answer starts from the clean defaults of upsertAnswer's insert.
      const row = await upsertAnswer(trx, r, q, previous ? { ...replacedBlobReset(), ...patch } : patch);
      return answerState(row);
    });
  } catch (err) {
    await deps.blobs.delete(key);
    throw err;
  }
  for (const old of replaced) await deps.blobs.delete(old);
  return state;
}

/**
 * Stores an uploaded file for a file_upload question (`POST …/file/`).
 * @param fileName the file's safe name (http/body.ts `filePartOf`: no directories, not empty)
 * @throws AppError NOT_FOUND, LINK_PAUSED, ALREADY_SUBMITTED, VALIDATION_ERROR, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE
 */
export async function saveFile(deps: IntakeDeps, l: IntakeLink, sessionId: string, questionUuid: string, file: File, fileName: string) {
  const q = findQuestion(l, questionUuid);
  if (q.type !== "file_upload") throw new AppError("VALIDATION_ERROR", "This question does not take a file.");
  const config = JSON.parse(q.configuration) as { allowed_types?: string[]; max_size_mb?: number };
  if (file.size > (config.max_size_mb ?? 10) * 1024 * 1024) throw new AppError("PAYLOAD_TOO_LARGE", `Files may be at most ${config.max_size_mb ?? 10} MiB.`);
  if (file.size === 0) throw new AppError("VALIDATION_ERROR", "The file is empty.", { errors: [{ pointer: "/file", message: "The file is empty." }] });
  const bytes = new Uint8Array(await file.arrayBuffer());
  // The type comes from the bytes, never from the name or the part's Content-Type.
  const sniffed = await sniffFile(bytes);
  const nameExt = fileName.includes(".") ? fileName.split(".").pop()!.toLowerCase() : "";
  if (!(await extensionMatches(nameExt, sniffed))) throw new AppError("UNSUPPORTED_MEDIA_TYPE", `The file's content is not what its name says (.${nameExt}).`);
  const type = sniffed.mime;
  const allowed = config.allowed_types ?? [];
  if (!allowedTypesAccept(allowed, nameExt, sniffed)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", `Accepted file types: ${allowed.join(", ")}.`);
  const key = await deps.blobs.put("files", bytes);
  const meta = { name: fileName.slice(0, 255), size: file.size, content_type: type };
  return replaceAnswerBlob(deps, l, sessionId, q, key, { file_blob: key, file_meta: JSON.stringify(meta), value: JSON.stringify(meta.name), text: meta.name });
}

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
      } else if (FREE_TEXT_TYPES.has(a.response_type as QuestionType) && a.text) {
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

/**
 * Queues `response.submitted` once a completed response has no answer left to transcribe or
 * analyse (DESIGN §8), exactly once. Call inside the transaction that finished the last answer.
 * @returns true when the event was queued now for at least one webhook (nudge the dispatcher)
 */
export async function queueSubmittedEventIfReady(
  trx: Transaction<Database>,
  deps: Pick<IntakeDeps, "publicUrl" | "signingSecret" | "audioUrlTtlS">,
  responseUuid: string,
): Promise<boolean> {
  const r = await responsesRepo.findResponseByUuid(trx, responseUuid);
  if (!r || r.status !== "completed" || r.submitted_event_at) return false;
  if ((await responsesRepo.countUnprocessedAnswers(trx, responseUuid)) > 0) return false;
  await responsesRepo.updateResponse(trx, responseUuid, { submitted_event_at: nowIso() });
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
  return queued !== null;
}
