/**
 * @module alerts/fire
 * Firing alerts (issue 28; docs/alerts.md "When an alert fires"): when a completed response's
 * last answer is analysed — in the transaction that queues its `response.submitted` event
 * (responses/submitted-event.ts) — every enabled rule of its link is matched against its answers;
 * each rule that fires and is within its hourly allowance queues one `alert.message` event in
 * the outbox for its own target (an email rule: one `mail` job). Nothing is sent inline: the dispatcher delivers it with the
 * webhooks' retries and SSRF guard.
 */
import type { Transaction } from "kysely";
import { systemClock, type Clock } from "../../clock.ts";
import type { AnswerTable, Database, Executor } from "../../db/schema.ts";
import { enqueueEventForWebhook } from "../../outbox/enqueue.ts";
import { ALERT_EVENT_TYPE } from "../../outbox/alert-request.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import type { ComposedMailPayload } from "../mail/service.ts";
import { emailMessage, recipientsOf } from "./formats/email.ts";
import { requestFor } from "./formats/index.ts";
import type { MatchAnswer } from "./match.ts";
import { matchRule } from "./match.ts";
import { type AlertMessage, clip, QUOTE_MAX_CHARS } from "./message.ts";
import type { AlertCondition, DestinationKind } from "./model.ts";
import * as repo from "./repository.ts";

/** The console page of a response. */
export function responseConsoleUrl(publicUrl: string, responseUuid: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/console/responses/${responseUuid}`;
}

/** What matching reads of an answer row (insights JSON, rating on an NPS question). */
export function matchAnswerOf(
  a: Pick<AnswerTable, "uuid" | "text" | "transcription" | "ai_insights" | "response_type" | "value" | "theme_uuid">,
  config: string | undefined,
): MatchAnswer {
  const insights = a.ai_insights ? (JSON.parse(a.ai_insights) as { sentiment?: string; actionable?: boolean }) : null;
  let nps: number | null = null;
  if (a.response_type === "rating" && config && (JSON.parse(config) as { scale_type?: string }).scale_type === "nps") {
    const v = JSON.parse(a.value) as unknown;
    if (typeof v === "number") nps = v;
  }
  return {
    uuid: a.uuid,
    text: a.transcription ?? a.text ?? null,
    sentiment: insights?.sentiment ?? null,
    actionable: insights?.actionable === true,
    nps,
    themeUuid: a.theme_uuid ?? null,
  };
}

/** The answers of a response as matching reads them. */
export async function matchAnswersOf(db: Executor, responseUuid: string): Promise<MatchAnswer[]> {
  const answers = await db.selectFrom("answers").selectAll().where("response_uuid", "=", responseUuid).orderBy("position").execute();
  const configs = await repo.questionConfigs(db, [...new Set(answers.filter((a) => a.response_type === "rating").map((a) => a.question_uuid))]);
  return answers.map((a) => matchAnswerOf(a, configs.get(a.question_uuid)));
}

/** Theme labels of the rules' theme conditions. */
export function themeUuidsOf(conditions: readonly AlertCondition[]): string[] {
  return conditions.flatMap((c) => (c.type === "theme" ? [c.theme_uuid] : []));
}

/**
 * The message a rule's match produces.
 * @param suppressed alerts the rate limit dropped since the rule's last message
 */
export function messageOf(
  linkName: string,
  rule: { name: string },
  match: NonNullable<ReturnType<typeof matchRule>>,
  responseUrl: string,
  suppressed: number,
): AlertMessage {
  const q = match.quoteAnswer;
  return {
    linkName,
    ruleName: rule.name,
    reasons: match.reasons,
    sentiment: q?.sentiment ?? null,
    quote: q?.text ? clip(q.text, QUOTE_MAX_CHARS) : null,
    responseUrl,
    suppressed,
  };
}

/**
 * Matches the link's enabled rules against a finished response and queues a message per rule
 * that fires and is within its allowance. Call inside the transaction that finished the response.
 * @param e.linkName reads the link's name (only when some rule exists: the intake's hot path pays one query)
 * @returns how many messages were queued (nudge the dispatcher when > 0)
 */
export async function queueAlertsForResponse(
  trx: Transaction<Database>,
  e: { workspaceUuid: string; linkUuid: string; linkName: () => Promise<string>; responseUuid: string; publicUrl: string },
  clock: Clock = systemClock,
): Promise<number> {
  const rules = await repo.enabledRulesOfLink(trx, e.linkUuid);
  if (!rules.length) return 0;
  const answers = await matchAnswersOf(trx, e.responseUuid);
  const parsed = rules.map((r) => ({ row: r, conditions: JSON.parse(r.conditions) as AlertCondition[] }));
  const labels = await repo.themeLabels(trx, [...new Set(parsed.flatMap((p) => themeUuidsOf(p.conditions)))]);
  const responseUrl = responseConsoleUrl(e.publicUrl, e.responseUuid);
  const linkName = await e.linkName();
  let queued = 0;
  for (const { row, conditions } of parsed) {
    const match = matchRule(conditions, row.match === "all" ? "all" : "any", answers, labels);
    if (!match) continue;
    const suppressed = await repo.takeFromAllowance(trx, row.uuid, clock.nowIso(), clock.isoAfter(-3600));
    if (suppressed === null) continue;
    const message = messageOf(linkName, row, match, responseUrl, suppressed);
    if (row.destination_kind === "email") {
      // One `mail` job (src/modules/mail/service.ts) for all recipients, in this transaction.
      const payload: ComposedMailPayload = {
        kind: "alert",
        to: recipientsOf(row.destination_url).join(", "),
        message: emailMessage(message),
        workspace_uuid: e.workspaceUuid,
        alert_uuid: row.uuid,
      };
      await enqueueJob(trx, "mail", payload, undefined, clock);
      queued++;
      continue;
    }
    // Matrix's transaction id: stored with the request, so every retry reuses it.
    const txnId = `earshot-${crypto.randomUUID().replaceAll("-", "")}`;
    const request = requestFor({ kind: row.destination_kind as DestinationKind, url: row.destination_url, room: row.matrix_room }, message, txnId);
    await enqueueEventForWebhook(
      trx,
      {
        workspaceUuid: e.workspaceUuid,
        webhookUuid: row.webhook_uuid,
        type: ALERT_EVENT_TYPE,
        data: { alert_uuid: row.uuid, response: { uuid: e.responseUuid }, request },
      },
      clock,
    );
    queued++;
  }
  return queued;
}
