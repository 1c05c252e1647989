/**
 * @module web/intake/state
 * The respondent's answers: what the server has confirmed (answer states) and what was typed
 * but not yet saved. Saves run one at a time per question, so a slow response never overwrites
 * a newer value; uploads are tracked so Next/Submit can wait for them. The session (the
 * `started` response) is created by the first answer, not by opening the page
 * ({@link IntakeState.ensureSession}), so `started` counts respondents, not page views.
 */
import { isVoiceType as isVoiceResponseType } from "../../src/shared/question-types.ts";
import type { IntakeApi } from "./api.ts";
import { respondentMessage } from "./messages.ts";
import type { AnswerState, AnswerValue, FollowUp, PublicLink, PublicQuestion } from "./types.ts";

/** True for the voice types, whose answer may be a recording or fallback text. */
export function isVoiceType(q: PublicQuestion): boolean {
  return isVoiceResponseType(q.response_type);
}

/** True when a value counts as "no answer" (null, blank string, empty list). */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === "string") return value.trim() === "";
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "number") return Number.isNaN(value);
  return false;
}

type Listener = (questionUuid: string) => void;

/** Answers of one session, with debounced per-question saving. */
export class IntakeState {
  readonly answers = new Map<string, AnswerState>();
  private readonly local = new Map<string, AnswerValue>();
  private readonly saveErrors = new Map<string, string>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly operations = new Map<string, Set<Promise<unknown>>>();
  private readonly listeners = new Set<Listener>();
  private session: string | null;
  private starting: Promise<string> | null = null;
  /** True once the session agreed to `settings.consent` (issue 25). */
  hasConsent = false;
  /** Consent given before the session exists (`required_before: "start"`): sent with the start. */
  startConsent: { language: string | null } | undefined;

  /**
   * @param sessionId a resumed session, or null until the first answer starts one
   * @param onSessionStarted receives the id of a session this state started (to remember it)
   * @param hidden the hidden-field values of the page's URL, which conditions may test (issue 25)
   */
  constructor(
    private readonly api: IntakeApi,
    readonly link: PublicLink,
    sessionId: string | null,
    initial: Record<string, AnswerState> = {},
    private readonly onSessionStarted: (sessionId: string) => void = () => {},
    readonly hidden: ReadonlyMap<string, string> = new Map(),
  ) {
    this.session = sessionId;
    for (const [uuid, answer] of Object.entries(initial)) this.answers.set(uuid, answer);
  }

  /** True when recording needs the respondent's consent first (docs/intake.md "Consent"). */
  needsRecordingConsent(): boolean {
    return Boolean(this.link.settings.consent) && !this.hasConsent;
  }

  /**
   * Records the respondent's agreement (starting the session when needed).
   * @param language the language whose translation of the text was shown, or null for the source
   */
  async giveConsent(language: string | null): Promise<void> {
    const sessionId = await this.ensureSession();
    if (this.hasConsent) return;
    await this.api.giveConsent(sessionId, language);
    this.hasConsent = true;
  }

  /** The session's id, or null while nothing was answered yet. */
  get sessionId(): string | null {
    return this.session;
  }

  /**
   * The session's id, starting the session (`POST …/sessions/`) on first use; concurrent calls
   * share one start, and a failed start is retried by the next call.
   * @throws ApiError when the session cannot be started (e.g. LINK_PAUSED, RATE_LIMITED)
   */
  ensureSession(): Promise<string> {
    if (this.session) return Promise.resolve(this.session);
    this.starting ??= this.api.startSession(this.startConsent).then(
      (started) => {
        this.session = started.session_id;
        this.hasConsent = started.consent != null;
        this.onSessionStarted(started.session_id);
        return started.session_id;
      },
      (err: unknown) => {
        this.starting = null;
        throw err;
      },
    );
    return this.starting;
  }

  /** Calls `fn` with the question uuid whenever an answer changes locally or on the server. */
  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private notify(questionUuid: string): void {
    for (const fn of this.listeners) fn(questionUuid);
  }

  /** The current value: the unsaved local one, else the server's. */
  value(q: PublicQuestion): unknown {
    if (this.local.has(q.uuid)) return this.local.get(q.uuid);
    return this.answers.get(q.uuid)?.value ?? null;
  }

  /** The answer state last confirmed by the server, if any. */
  answer(q: PublicQuestion): AnswerState | undefined {
    return this.answers.get(q.uuid);
  }

  /** The last save or upload error of a question, if the latest attempt failed. */
  errorFor(q: PublicQuestion): string | undefined {
    return this.saveErrors.get(q.uuid);
  }

  /** Whether the question holds an answer (a recording counts for voice, a stored file for uploads). */
  isAnswered(q: PublicQuestion): boolean {
    const answer = this.answers.get(q.uuid);
    if (isVoiceType(q) && answer?.has_audio) return true;
    if (q.response_type === "file_upload") return Boolean(answer && (answer.file || !isEmptyValue(answer.value)));
    return !isEmptyValue(this.value(q));
  }

  /**
   * The value a condition tests: the saved or typed value, null when empty. A recording alone
   * has no value (the server evaluates conditions before transcripts exist).
   */
  conditionValue(q: PublicQuestion): unknown {
    const value = this.value(q);
    return isEmptyValue(value) ? null : value;
  }

  /**
   * Records a value typed by the respondent and saves it after `delayMs` (0 = now). A blank
   * value with nothing stored on the server is kept locally only.
   */
  setValue(q: PublicQuestion, value: AnswerValue, delayMs = 0): void {
    const stored = this.answers.get(q.uuid)?.value;
    if (isEmptyValue(value) && isEmptyValue(stored)) {
      this.local.delete(q.uuid);
      clearTimeout(this.timers.get(q.uuid));
      this.timers.delete(q.uuid);
      this.saveErrors.delete(q.uuid);
    } else {
      this.local.set(q.uuid, isEmptyValue(value) ? null : value);
      clearTimeout(this.timers.get(q.uuid));
      if (delayMs > 0)
        this.timers.set(
          q.uuid,
          setTimeout(() => void this.save(q.uuid), delayMs),
        );
      else void this.save(q.uuid);
    }
    this.notify(q.uuid);
  }

  private save(questionUuid: string): Promise<void> {
    this.timers.delete(questionUuid);
    const previous = this.chains.get(questionUuid) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (!this.local.has(questionUuid)) return;
      const value = this.local.get(questionUuid) ?? null;
      try {
        const answer = await this.api.saveAnswer(await this.ensureSession(), questionUuid, value);
        this.answers.set(questionUuid, answer);
        this.saveErrors.delete(questionUuid);
        if (this.local.get(questionUuid) === value) this.local.delete(questionUuid);
      } catch (err) {
        const question = this.link.questions.find((q) => q.uuid === questionUuid);
        this.saveErrors.set(questionUuid, respondentMessage(err, { question }));
      }
      this.notify(questionUuid);
    });
    this.chains.set(questionUuid, next);
    return next;
  }

  /** Stores an answer state returned by an upload (audio, file) and clears its error. */
  applyAnswer(answer: AnswerState): void {
    this.answers.set(answer.question_uuid, answer);
    this.saveErrors.delete(answer.question_uuid);
    this.notify(answer.question_uuid);
  }

  /** The follow-up questions of a question's answer (dynamic probing), as the server last sent them. */
  followUps(q: PublicQuestion): FollowUp[] {
    return this.answers.get(q.uuid)?.follow_ups ?? [];
  }

  /** The first follow-up still waiting for an answer, if any. */
  pendingFollowUp(q: PublicQuestion): { index: number; question: string } | null {
    const index = this.followUps(q).findIndex((f) => f.answer === null);
    return index < 0 ? null : { index, question: this.followUps(q)[index]!.question };
  }

  /** Stores the follow-ups the server returned (probe, follow-up answer). */
  setFollowUps(q: PublicQuestion, followUps: FollowUp[]): void {
    const answer = this.answers.get(q.uuid);
    if (answer) this.answers.set(q.uuid, { ...answer, follow_ups: followUps });
    this.notify(q.uuid);
  }

  /** Records the error of an upload so Next/Submit can show it. */
  setError(q: PublicQuestion, message: string | null): void {
    if (message) this.saveErrors.set(q.uuid, message);
    else this.saveErrors.delete(q.uuid);
    this.notify(q.uuid);
  }

  /** Lets Next/Submit wait for an operation of a question (an upload, a recording). */
  track(q: PublicQuestion, operation: Promise<unknown>): void {
    const set = this.operations.get(q.uuid) ?? new Set();
    this.operations.set(q.uuid, set);
    const settled = operation.catch(() => undefined).finally(() => set.delete(settled));
    set.add(settled);
  }

  /** Saves any pending value of the question now and waits for its saves and uploads. */
  async flush(q: PublicQuestion): Promise<void> {
    if (this.timers.has(q.uuid)) {
      clearTimeout(this.timers.get(q.uuid));
      void this.save(q.uuid);
    }
    await Promise.all([...(this.operations.get(q.uuid) ?? [])]);
    await this.chains.get(q.uuid);
  }

  /** Flushes every question. */
  async flushAll(): Promise<void> {
    await Promise.all(this.link.questions.map((q) => this.flush(q)));
  }
}
