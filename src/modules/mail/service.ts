/**
 * @module mail/service
 * Earshot's mail (DESIGN §15, issue 28): invites and password resets are queued as `mail` jobs in
 * the transaction that creates them (so the invite exists whether or not the mail goes out), and
 * the job runner sends them with retries (src/jobs: 5 attempts, 5 s · 4^n apart). Every attempt
 * records where the mail stands on the invite or reset (`mail_state`: queued → sent, or retrying
 * → failed with the SMTP error), and the log says so. The one-time URL leaves the job's payload
 * once the mail is sent or given up. The test message is sent at once, not queued, so the
 * operator sees the server's answer.
 */
import type { Kysely, Transaction } from "kysely";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import { systemClock, type Clock } from "../../clock.ts";
import { enqueueJob, isClaimStillOurs, LeaseLostError, type Job } from "../../jobs/queue.ts";
import { PermanentJobError } from "../../jobs/runner.ts";
import type { AuthContext } from "../../auth/authenticate.ts";
import { composeMessage, type ComposedMessage } from "../../mail/messages.ts";
import type { MessageKind } from "../../mail/catalog.ts";
import { createMailer, MailError, type Mailer } from "../../mail/transport.ts";
import { recordByAuth } from "../audit/service.ts";
import { creatorOf } from "../tokens/service.ts";
import * as repo from "./repository.ts";

type MailConfigPart = Pick<Config, "smtpUrl" | "mailFrom" | "smtpCaFile" | "publicUrl">;

/** A queued mail: the job's payload. */
export type MailJobPayload = {
  kind: Exclude<MessageKind, "test">;
  to: string;
  lang: string;
  /** The one-time URL; removed once the mail is sent or given up. */
  url: string | null;
  values: Record<string, string>;
  /** The invite or reset whose `mail_state` this mail updates. */
  token_uuid: string;
};

/**
 * A queued message composed when queued (the email digest, modules/digests): sent as it is, with
 * no invite or reset to update. `message` is removed (null) once sent or given up.
 */
export type ComposedMailPayload =
  | { kind: "digest"; to: string; message: ComposedMessage | null; workspace_uuid: string; user_uuid: string }
  /** An alert rule's message (modules/alerts/fire.ts): `to` is the comma-separated recipients (one message to all). */
  | { kind: "alert"; to: string; message: ComposedMessage | null; workspace_uuid: string; alert_uuid: string };

/** Whether a `mail` job carries a composed message (a digest or an alert) rather than an invite or reset. */
function isComposed(payload: Record<string, unknown>): boolean {
  return payload.kind === "digest" || payload.kind === "alert";
}

/** Who a composed message is about, for the log. */
function subjectOf(p: ComposedMailPayload): Record<string, string> {
  return p.kind === "digest" ? { user: p.user_uuid, workspace: p.workspace_uuid } : { alert: p.alert_uuid, workspace: p.workspace_uuid };
}

/** Whether mail is configured (`EARSHOT_SMTP_URL` and `EARSHOT_MAIL_FROM`). */
export function mailEnabled(config: Pick<Config, "smtpUrl" | "mailFrom">): boolean {
  return !!config.smtpUrl && !!config.mailFrom;
}

/** `GET /api/v1/mail/`. */
export function mailSettings(config: Pick<Config, "smtpUrl" | "mailFrom">): { configured: boolean; from: string | null } {
  return { configured: mailEnabled(config), from: mailEnabled(config) ? config.mailFrom : null };
}

/**
 * Queues a mail in the caller's transaction and marks its invite or reset `queued`. Call the
 * job runner's nudge after the transaction commits.
 */
export async function queueMail(trx: Transaction<Database> | Kysely<Database>, payload: MailJobPayload, clock: Clock = systemClock): Promise<void> {
  await enqueueJob(trx, "mail", payload, undefined, clock);
  await repo.setMailState(trx, payload.token_uuid, "queued", null, clock.nowIso());
}

/** What the `mail` job handler needs. */
export type MailJobDeps = { db: Kysely<Database>; mailer: Mailer | null; log: Logger; clock?: Clock };

/**
 * The `mail` job handler: sends the message and records `sent`; on failure records `retrying`
 * with the error and throws so the runner retries.
 * @throws MailError (retried), PermanentJobError when mail is no longer configured or the payload lost its URL
 */
export async function sendMailJob(deps: MailJobDeps, job: Job): Promise<void> {
  const clock = deps.clock ?? systemClock;
  if (!deps.mailer) throw new PermanentJobError("Mail is not configured on this node (EARSHOT_SMTP_URL).");
  if (isComposed(job.payload)) return sendComposed(deps, job, job.payload as ComposedMailPayload);
  const p = job.payload as MailJobPayload;
  if (!p.url) throw new PermanentJobError("The message's link was already removed.");
  const message = composeMessage({ kind: p.kind, lang: p.lang, url: p.url, values: p.values });
  try {
    const { messageId } = await deps.mailer.send(p.to, message);
    await deps.db.transaction().execute(async (trx) => {
      if (!(await isClaimStillOurs(trx, job))) throw new LeaseLostError(job);
      await repo.setMailState(trx, p.token_uuid, "sent", null, clock.nowIso());
      await repo.replaceJobPayload(trx, job.id, JSON.stringify({ ...p, url: null }));
    });
    deps.log.info("mail sent", { job: job.id, kind: p.kind, token: p.token_uuid, message_id: messageId });
  } catch (err) {
    if (!(err instanceof MailError)) throw err;
    await repo.setMailState(deps.db, p.token_uuid, "retrying", err.message, clock.nowIso());
    deps.log.warn("mail not sent; it is retried", { job: job.id, kind: p.kind, token: p.token_uuid, attempt: job.attempts, error: err.message });
    throw err;
  }
}

/**
 * Sends a composed message (a digest, an alert); a failure is logged and thrown, so the runner
 * retries. An alert's every attempt shows on its rule (`last_delivery_at`, `last_delivery_status`:
 * the SMTP reply code), as an outbox delivery's does.
 */
async function sendComposed(deps: MailJobDeps, job: Job, p: ComposedMailPayload): Promise<void> {
  const now = () => (deps.clock ?? systemClock).nowIso();
  try {
    if (!p.message) throw new PermanentJobError("The message was already removed.");
    const { messageId } = await deps.mailer!.send(p.to, p.message);
    // Digests and alerts quote respondents: the text leaves the job once sent, as a one-time URL does.
    await repo.replaceJobPayload(deps.db, job.id, JSON.stringify({ ...p, message: null }));
    if (p.kind === "alert") await repo.recordAlertMailAttempt(deps.db, p.alert_uuid, now(), SMTP_ACCEPTED);
    deps.log.info("mail sent", { job: job.id, kind: p.kind, ...subjectOf(p), message_id: messageId });
  } catch (err) {
    if (err instanceof MailError) {
      if (p.kind === "alert") await repo.recordAlertMailAttempt(deps.db, p.alert_uuid, now(), err.responseCode);
      deps.log.warn("mail not sent; it is retried", { job: job.id, kind: p.kind, ...subjectOf(p), attempt: job.attempts, error: err.message });
    }
    throw err;
  }
}

/** The SMTP reply code of an accepted message (RFC 5321 §4.2.2). */
const SMTP_ACCEPTED = 250;

/** The runner gave a `mail` job up: the invite or reset says `failed` (it stays usable), the URL leaves the payload. */
export async function giveUpOnMail(deps: Pick<MailJobDeps, "db" | "log" | "clock">, job: Job, error: string): Promise<void> {
  if (isComposed(job.payload)) {
    await repo.replaceJobPayload(deps.db, job.id, JSON.stringify({ ...job.payload, message: null }));
    deps.log.error("mail given up", { job: job.id, kind: String(job.payload.kind), ...subjectOf(job.payload as ComposedMailPayload), error });
    return;
  }
  const p = job.payload as MailJobPayload;
  await repo.setMailState(deps.db, p.token_uuid, "failed", error.slice(0, 500), (deps.clock ?? systemClock).nowIso());
  await repo.replaceJobPayload(deps.db, job.id, JSON.stringify({ ...p, url: null }));
  deps.log.error("mail given up: the invite or reset stays valid; hand its URL over another way", { job: job.id, kind: p.kind, token: p.token_uuid, error });
}

/**
 * Sends a test message now (`POST /api/v1/mail/test/`) and audits it (`mail.test_sent` or
 * `mail.test_failed`, the label naming the recipient and any error).
 * @param to the recipient, default the caller's own address (the key creator's for an API key)
 * @param lang the message's language (a catalog language; else English)
 * @throws AppError MAIL_NOT_CONFIGURED, VALIDATION_ERROR (no recipient known), MAIL_SEND_FAILED (the SMTP error, no secrets)
 */
export async function sendTestMail(
  deps: { db: Kysely<Database>; config: MailConfigPart; mailer?: Mailer },
  auth: AuthContext,
  input: { to?: string | undefined },
  lang: string,
): Promise<{ sent: true; to: string; message_id: string }> {
  if (!mailEnabled(deps.config)) throw new AppError("MAIL_NOT_CONFIGURED", "Mail is not configured: set EARSHOT_SMTP_URL and EARSHOT_MAIL_FROM.");
  const me = await creatorOf(deps.db, auth);
  const to = input.to ?? me?.email;
  if (!to)
    throw new AppError("VALIDATION_ERROR", "Name the recipient: this key has no user to send to.", {
      errors: [{ pointer: "/to", message: "An email address is needed." }],
    });
  const message = composeMessage({ kind: "test", lang, url: `${deps.config.publicUrl}/console/`, values: { actor: auth.actor.name } });
  const mailer = deps.mailer ?? createMailer({ smtpUrl: deps.config.smtpUrl!, mailFrom: deps.config.mailFrom!, smtpCaFile: deps.config.smtpCaFile });
  try {
    const { messageId } = await mailer.send(to, message);
    await recordByAuth(deps.db, auth, "mail.test_sent", { type: "mail", uuid: null, label: to });
    return { sent: true, to, message_id: messageId };
  } catch (err) {
    if (!(err instanceof MailError)) throw err;
    await recordByAuth(deps.db, auth, "mail.test_failed", { type: "mail", uuid: null, label: `${to}: ${err.message}`.slice(0, 500) });
    throw new AppError("MAIL_SEND_FAILED", `The test message to ${to} was not sent: ${err.message}`);
  } finally {
    if (!deps.mailer) mailer.close();
  }
}
