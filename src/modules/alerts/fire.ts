/**
 * @module alerts/fire
 * Firing alerts (issue 28; docs/alerts.md "When an alert fires"): when a completed response's
 * last answer is analysed — in the transaction that queues its `response.submitted` event
 * (responses/submitted-event.ts) — every enabled rule of its link is matched against its answers;
 * each rule that fires and is within its hourly allowance queues one `alert.message` event in
 * the outbox for its own target (an email rule: one `mail` job). Nothing is sent inline: the dispatcher delivers it with the
 * webhooks' retries and SSRF guard. A theme rebuild that places an analysed answer in a theme
 * fires the theme rules it now satisfies ({@link queueAlertsForThemePlacements}). Messages are in
 * the rule's language (alerts/catalog.ts).
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
import { alertLanguageOf, alertWordsOf } from "./catalog.ts";
import type { MatchAnswer, MatchResult } from "./match.ts";
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
 * @param lang the message's language (the rule's `lang`; a catalog language, else English)
 */
export function messageOf(
  linkName: string,
  rule: { name: string },
  match: NonNullable<ReturnType<typeof matchRule>>,
  responseUrl: string,
  suppressed: number,
  lang: string,
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
    lang: alertLanguageOf(lang),
  };
}

/** What firing a rule about one response needs. */
type Firing = { workspaceUuid: string; responseUuid: string; responseUrl: string; linkName: string };

/** A rule's match in the rule's language, or null when it does not fire. */
function matchInRuleLanguage(row: repo.AlertRuleRow, answers: MatchAnswer[], labels: ReadonlyMap<string, string>) {
  const conditions = JSON.parse(row.conditions) as AlertCondition[];
  return matchRule(conditions, row.match === "all" ? "all" : "any", answers, labels, alertWordsOf(row.lang));
}

/**
 * Takes one message from the rule's allowance and queues it: an `alert.message` outbox event for
 * the rule's target, or one `mail` job for an email rule.
 * @returns whether a message was queued (false: over the hourly cap, counted as suppressed)
 */
async function queueRuleMessage(trx: Transaction<Database>, f: Firing, row: repo.AlertRuleRow, match: MatchResult, clock: Clock): Promise<boolean> {
  // Once per rule and response, whichever path fires first (the analysis, or a rebuild).
  if (!(await repo.recordFiring(trx, row.uuid, f.responseUuid, clock.nowIso(), clock.isoAfter(-FIRINGS_KEPT_S)))) return false;
  const suppressed = await repo.takeFromAllowance(trx, row.uuid, clock.nowIso(), clock.isoAfter(-3600));
  if (suppressed === null) return false;
  const message = messageOf(f.linkName, row, match, f.responseUrl, suppressed, row.lang ?? "en");
  if (row.destination_kind === "email") {
    // One `mail` job (src/modules/mail/service.ts) for all recipients, in this transaction.
    const payload: ComposedMailPayload = {
      kind: "alert",
      to: recipientsOf(row.destination_url).join(", "),
      message: emailMessage(message),
      workspace_uuid: f.workspaceUuid,
      alert_uuid: row.uuid,
    };
    await enqueueJob(trx, "mail", payload, undefined, clock);
    return true;
  }
  // Matrix's transaction id: stored with the request, so every retry reuses it.
  const txnId = `earshot-${crypto.randomUUID().replaceAll("-", "")}`;
  const dest = { kind: row.destination_kind as DestinationKind, url: row.destination_url, room: row.matrix_room, bearer: Number(row.bearer) === 1 };
  await enqueueEventForWebhook(
    trx,
    {
      workspaceUuid: f.workspaceUuid,
      webhookUuid: row.webhook_uuid,
      type: ALERT_EVENT_TYPE,
      data: { alert_uuid: row.uuid, response: { uuid: f.responseUuid }, request: requestFor(dest, message, txnId) },
    },
    clock,
  );
  return true;
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
  const labels = await repo.themeLabels(trx, [...new Set(rules.flatMap((r) => themeUuidsOf(JSON.parse(r.conditions) as AlertCondition[])))]);
  const f: Firing = { ...e, responseUrl: responseConsoleUrl(e.publicUrl, e.responseUuid), linkName: await e.linkName() };
  let queued = 0;
  for (const row of rules) {
    const match = matchInRuleLanguage(row, answers, labels);
    if (match && (await queueRuleMessage(trx, f, row, match, clock))) queued++;
  }
  return queued;
}

/**
 * How long after a response's analysis a rebuild placing its answer in a theme still alerts (s):
 * a week, the longest a quiet question waits for its next rebuild in practice; an older response
 * is history, not news (and a rebuild's transaction does not walk a link's whole past).
 */
export const LATE_ALERT_WINDOW_S = 7 * 86_400;

/** How long a rule's firing for a response is remembered (s): the late window and a day's margin. */
const FIRINGS_KEPT_S = LATE_ALERT_WINDOW_S + 86_400;

/** An answer a theme rebuild moved: its theme before and after. */
export type ThemePlacement = { answerUuid: string; before: string | null; after: string };

/**
 * Alerts of answers a theme rebuild placed in a theme (themes/engine.ts, in the rebuild's
 * transaction; docs/alerts.md "When an alert fires"). A response's rules are matched when its
 * analysis commits, but an answer analysed before its theme existed or had a centre (the queue
 * runs analyses before rebuilds) gets the theme only from a rebuild. For each response of a placed
 * answer whose analysis already committed, a rule with a condition on the answer's new theme fires
 * now when it matches the response as it is now, did not match it before the move, has not fired
 * for the response yet (`alert_firings`: a rule fires once per response, however often rebuilds
 * move its answers), and existed when the response was submitted (a rule does not look back);
 * responses analysed more than {@link LATE_ALERT_WINDOW_S} ago are left alone.
 * @returns how many messages were queued (nudge the dispatcher when > 0)
 */
export async function queueAlertsForThemePlacements(
  trx: Transaction<Database>,
  e: { workspaceUuid: string; linkUuid: string; publicUrl: string; placements: readonly ThemePlacement[] },
  clock: Clock = systemClock,
): Promise<number> {
  const moved = e.placements.filter((p) => p.after !== p.before);
  if (!moved.length) return 0;
  const rules = (await repo.enabledRulesOfLink(trx, e.linkUuid)).filter((r) => themeUuidsOf(JSON.parse(r.conditions) as AlertCondition[]).length > 0);
  const watched = new Set(rules.flatMap((r) => themeUuidsOf(JSON.parse(r.conditions) as AlertCondition[])));
  const relevant = moved.filter((p) => watched.has(p.after));
  if (!relevant.length) return 0;
  const before = new Map(moved.map((p) => [p.answerUuid, p.before]));
  const labels = await repo.themeLabels(trx, [...watched]);
  const linkName = (await trx.selectFrom("links").select("name").where("uuid", "=", e.linkUuid).executeTakeFirst())?.name ?? "";
  let queued = 0;
  const since = clock.isoAfter(-LATE_ALERT_WINDOW_S);
  for (const r of await repo.analysedResponsesOf(trx, [...new Set(relevant.map((p) => p.answerUuid))], since)) {
    const now = await matchAnswersOf(trx, r.uuid);
    const then = now.map((a) => (before.has(a.uuid) ? { ...a, themeUuid: before.get(a.uuid)! } : a));
    const newThemes = new Set(relevant.filter((p) => now.some((a) => a.uuid === p.answerUuid)).map((p) => p.after));
    const f: Firing = { workspaceUuid: e.workspaceUuid, responseUuid: r.uuid, responseUrl: responseConsoleUrl(e.publicUrl, r.uuid), linkName };
    for (const row of rules) {
      if (row.date_created > r.submitted_at) continue;
      if (!themeUuidsOf(JSON.parse(row.conditions) as AlertCondition[]).some((t) => newThemes.has(t))) continue;
      const match = matchInRuleLanguage(row, now, labels);
      if (!match || matchInRuleLanguage(row, then, labels)) continue;
      if (await queueRuleMessage(trx, f, row, match, clock)) queued++;
    }
  }
  return queued;
}
