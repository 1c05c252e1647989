/**
 * @module alerts/service
 * Alert rules of a link (issue 28; DESIGN §15; docs/alerts.md): create, list, read, update,
 * delete, and the preview of the exact request each destination receives. Each rule owns an
 * outbox target (a `webhooks` row of purpose `alert`, holding the destination URL and, for
 * Matrix and a protected ntfy topic, the access token as its secret), so delivery, retries, the
 * SSRF guard and a 410's disabling are the webhooks' own. A rule's messages are in its `lang`
 * (alerts/catalog.ts), by default the language of the request that created it.
 */
import type { Kysely } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database, Executor } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import type { AuthContext, Authenticator } from "../../auth/authenticate.ts";
import { isUuid } from "../../shared/uuid.ts";
import { assertDeliverableUrl, generateWebhookSecret } from "../webhooks/service.ts";
import { DESTINATION_CHANGED_ERROR, endUnsentDeliveries } from "../../outbox/repository.ts";
import { matchAnswersOf, messageOf, responseConsoleUrl, themeUuidsOf } from "./fire.ts";
import { emailMessage, mailtoOf, recipientsOf } from "./formats/email.ts";
import { requestFor } from "./formats/index.ts";
import { alertLanguageOf, alertWordsOf } from "./catalog.ts";
import { matchRule } from "./match.ts";
import { type AlertMessage, sampleMessage } from "./message.ts";
import type { Alert, AlertCondition, CreateAlertInput, DestinationInput, DestinationKind, PatchAlertInput, PreviewAlertInput } from "./model.ts";
import * as repo from "./repository.ts";

/** What the alert services need. */
export type AlertDeps = {
  db: Kysely<Database>;
  auth: Authenticator;
  allowHosts: readonly string[];
  publicUrl: string;
  /** Whether mail is configured (EARSHOT_SMTP_URL and EARSHOT_MAIL_FROM): an email destination needs it. */
  mailConfigured: boolean;
};

/**
 * Checks a destination before it is stored and returns the URL to store (for email the
 * recipients' `mailto:` URI).
 * @throws AppError MAIL_NOT_CONFIGURED (email without mail), VALIDATION_ERROR (forbidden address)
 */
function destinationUrl(deps: AlertDeps, d: DestinationInput): string {
  if (d.kind === "email") {
    if (!deps.mailConfigured)
      throw new AppError("MAIL_NOT_CONFIGURED", "Mail is not configured: set EARSHOT_SMTP_URL and EARSHOT_MAIL_FROM to send alerts by email.");
    return mailtoOf(d.to!);
  }
  assertDeliverableUrl(d.url!, deps.allowHosts, "/destination/url");
  return d.url!;
}

/** Maps a stored rule to the API record (an access token never leaves). */
export function toAlert(row: repo.AlertRuleWithTarget): Alert {
  return {
    uuid: row.uuid,
    link_uuid: row.link_uuid,
    name: row.name,
    conditions: JSON.parse(row.conditions) as AlertCondition[],
    match: row.match === "all" ? "all" : "any",
    destination: {
      kind: row.destination_kind as DestinationKind,
      url: row.destination_url,
      room: row.matrix_room,
      has_token: row.destination_kind === "matrix" || Number(row.bearer) === 1,
      to: row.destination_kind === "email" ? recipientsOf(row.destination_url) : null,
    },
    max_per_hour: Number(row.max_per_hour),
    enabled: Number(row.enabled) === 1,
    lang: alertLanguageOf(row.lang),
    disabled_reason: Number(row.target_enabled) === 1 ? null : row.disabled_reason,
    suppressed: Number(row.suppressed),
    last_delivery_at: row.last_delivery_at,
    last_delivery_status: row.last_delivery_status === null ? null : Number(row.last_delivery_status),
    date_created: row.date_created,
    date_updated: row.date_updated,
  };
}

/** The caller's link. @throws AppError NOT_FOUND */
async function ownLink(db: Executor, auth: AuthContext, linkUuid: string) {
  // Read here, not through links/ (links/ deletes a link's rules: features import one way).
  const link = isUuid(linkUuid)
    ? await db
        .selectFrom("links")
        .select(["uuid", "name"])
        .where("workspace_uuid", "=", auth.workspaceUuid)
        .where("uuid", "=", linkUuid.toLowerCase())
        .executeTakeFirst()
    : undefined;
  if (!link) throw notFound("Link");
  return link;
}

/** One rule of the caller's link. @throws AppError NOT_FOUND */
async function ownRule(db: Executor, auth: AuthContext, linkUuid: string, uuid: string) {
  const link = await ownLink(db, auth, linkUuid);
  const row = isUuid(uuid) ? await repo.findAlertRule(db, link.uuid, uuid.toLowerCase()) : undefined;
  if (!row) throw notFound("Alert");
  return { link, row };
}

/** Theme conditions must name a theme of the link. @throws AppError VALIDATION_ERROR */
async function assertThemesOfLink(db: Executor, linkUuid: string, conditions: readonly AlertCondition[]): Promise<void> {
  const uuids = themeUuidsOf(conditions);
  if (!uuids.length) return;
  const found = await db.selectFrom("themes").select("uuid").where("link_uuid", "=", linkUuid).where("uuid", "in", uuids).execute();
  const known = new Set(found.map((t) => t.uuid));
  const index = conditions.findIndex((c) => c.type === "theme" && !known.has(c.theme_uuid));
  if (index >= 0)
    throw new AppError("VALIDATION_ERROR", "A theme condition names no theme of this link.", {
      errors: [{ pointer: `/conditions/${index}/theme_uuid`, message: "No theme of this link has this uuid." }],
    });
}

/** A page of the link's rules, newest first. @throws AppError NOT_FOUND */
export async function listAlerts(deps: AlertDeps, auth: AuthContext, linkUuid: string, limit: number, offset: number) {
  const link = await ownLink(deps.db, auth, linkUuid);
  const { rows, count } = await repo.listAlertRules(deps.db, link.uuid, limit, offset);
  return { count, results: rows.map(toAlert) };
}

/** One rule. @throws AppError NOT_FOUND */
export async function getAlert(deps: AlertDeps, auth: AuthContext, linkUuid: string, uuid: string): Promise<Alert> {
  return toAlert((await ownRule(deps.db, auth, linkUuid, uuid)).row);
}

/**
 * Creates a rule and its outbox target.
 * @param requestLang the caller's language (its request's Accept-Language): the rule's when the body names none
 * @throws AppError NOT_FOUND (link), VALIDATION_ERROR (forbidden address, unknown theme), MAIL_NOT_CONFIGURED (email without mail), UNAUTHENTICATED (revoked meanwhile)
 */
export async function createAlert(deps: AlertDeps, auth: AuthContext, linkUuid: string, input: CreateAlertInput, requestLang = "en"): Promise<Alert> {
  const url = destinationUrl(deps, input.destination);
  return deps.db.transaction().execute(async (trx) => {
    const link = await ownLink(trx, auth, linkUuid);
    await assertThemesOfLink(trx, link.uuid, input.conditions);
    const now = nowIso();
    const webhookUuid = crypto.randomUUID();
    await trx
      .insertInto("webhooks")
      .values({
        uuid: webhookUuid,
        workspace_uuid: auth.workspaceUuid,
        link_uuid: link.uuid,
        // An email rule's target is never dispatched (its alerts are mail jobs); it keeps the rule's shape.
        url,
        events: "alert.message",
        enabled: 1,
        secret: input.destination.token ?? generateWebhookSecret(),
        previous_secret: null,
        previous_secret_expires_at: null,
        disabled_reason: null,
        failing_since: null,
        last_delivery_at: null,
        last_delivery_status: null,
        date_created: now,
        date_updated: now,
        purpose: "alert",
      })
      .execute();
    const uuid = crypto.randomUUID();
    await repo.insertAlertRule(trx, {
      uuid,
      workspace_uuid: auth.workspaceUuid,
      link_uuid: link.uuid,
      name: input.name,
      conditions: JSON.stringify(input.conditions),
      match: input.match,
      destination_kind: input.destination.kind,
      destination_url: url,
      matrix_room: input.destination.room ?? null,
      webhook_uuid: webhookUuid,
      max_per_hour: input.max_per_hour,
      window_start: null,
      window_sent: 0,
      suppressed: 0,
      enabled: input.enabled ? 1 : 0,
      date_created: now,
      date_updated: now,
      lang: alertLanguageOf(input.lang ?? requestLang),
      bearer: input.destination.kind === "ntfy" && input.destination.token ? 1 : 0,
    });
    await deps.auth.assertActive(trx, auth);
    return toAlert((await repo.findAlertRule(trx, link.uuid, uuid))!);
  });
}

/**
 * Updates a rule; a new destination replaces the target's URL (and token), and enabling it again
 * re-enables a target a 410 or a long failure disabled.
 * @throws AppError NOT_FOUND, VALIDATION_ERROR, MAIL_NOT_CONFIGURED (email without mail), UNAUTHENTICATED
 */
export async function patchAlert(deps: AlertDeps, auth: AuthContext, linkUuid: string, uuid: string, input: PatchAlertInput): Promise<Alert> {
  const url = input.destination ? destinationUrl(deps, input.destination) : null;
  return deps.db.transaction().execute(async (trx) => {
    const { link, row } = await ownRule(trx, auth, linkUuid, uuid);
    if (input.conditions) await assertThemesOfLink(trx, link.uuid, input.conditions);
    const now = nowIso();
    const patch: Partial<repo.AlertRuleRow> = { date_updated: now };
    if (input.name !== undefined) patch.name = input.name;
    if (input.conditions !== undefined) patch.conditions = JSON.stringify(input.conditions);
    if (input.match !== undefined) patch.match = input.match;
    if (input.max_per_hour !== undefined) patch.max_per_hour = input.max_per_hour;
    if (input.enabled !== undefined) patch.enabled = input.enabled ? 1 : 0;
    if (input.lang !== undefined) patch.lang = input.lang;
    const target: Record<string, unknown> = {};
    if (input.destination) {
      const bearer = input.destination.kind === "ntfy" && input.destination.token ? 1 : 0;
      Object.assign(patch, { destination_kind: input.destination.kind, destination_url: url!, matrix_room: input.destination.room ?? null, bearer });
      target.url = url!;
      // A destination without a token drops the old one: it is not sent to the new URL.
      target.secret = input.destination.token ?? generateWebhookSecret();
    }
    if (input.enabled === true || input.destination) Object.assign(target, { enabled: 1, disabled_reason: null, failing_since: null });
    await repo.updateAlertRule(trx, row.uuid, patch);
    // A queued alert is built for its old destination: it is not sent to the new one, and a retry
    // never carries the new token to the old URL.
    if (input.destination) await endUnsentDeliveries(trx, row.webhook_uuid, DESTINATION_CHANGED_ERROR);
    if (Object.keys(target).length)
      await trx
        .updateTable("webhooks")
        .set({ ...target, date_updated: now })
        .where("uuid", "=", row.webhook_uuid)
        .execute();
    await deps.auth.assertActive(trx, auth);
    return toAlert((await repo.findAlertRule(trx, link.uuid, row.uuid))!);
  });
}

/** Deletes a rule, its target and its delivery log. @throws AppError NOT_FOUND, UNAUTHENTICATED */
export async function deleteAlert(deps: AlertDeps, auth: AuthContext, linkUuid: string, uuid: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const { row } = await ownRule(trx, auth, linkUuid, uuid);
    await repo.deleteAlertRule(trx, row);
    await deps.auth.assertActive(trx, auth);
  });
}

/**
 * The exact request the destination would receive (`POST …/alerts/preview/`): for a saved rule
 * (`alert_uuid`) or a draft (`rule`), about a response of the link (`response_uuid`) or a sample
 * answer. A real response the rule does not match still previews, with the reason "(no match)".
 * An access token is shown as `Bearer …`, never in clear. In the saved rule's language, else the
 * draft's `lang`, else `requestLang`.
 * @throws AppError NOT_FOUND (link, alert or response)
 */
export async function previewAlert(deps: AlertDeps, auth: AuthContext, linkUuid: string, input: PreviewAlertInput, requestLang = "en") {
  const link = await ownLink(deps.db, auth, linkUuid);
  const rule = input.alert_uuid ? toAlert((await ownRule(deps.db, auth, linkUuid, input.alert_uuid)).row) : null;
  const name = rule?.name ?? input.rule!.name;
  const conditions = rule?.conditions ?? input.rule!.conditions;
  const match = rule?.match ?? input.rule!.match;
  const lang = rule?.lang ?? alertLanguageOf(input.rule!.lang ?? requestLang);
  const words = alertWordsOf(lang);
  const dest = rule
    ? { kind: rule.destination.kind, url: rule.destination.url, room: rule.destination.room, bearer: rule.destination.has_token }
    : {
        kind: input.rule!.destination.kind,
        url: input.rule!.destination.kind === "email" ? mailtoOf(input.rule!.destination.to!) : input.rule!.destination.url!,
        room: input.rule!.destination.room ?? null,
        bearer: input.rule!.destination.token !== undefined,
      };
  const labels = new Map(
    (await deps.db.selectFrom("themes").select(["uuid", "label"]).where("link_uuid", "=", link.uuid).execute()).map((t) => [t.uuid, t.label]),
  );
  let message: AlertMessage;
  if (input.response_uuid) {
    const response = await deps.db
      .selectFrom("responses")
      .select("uuid")
      .where("uuid", "=", input.response_uuid)
      .where("link_uuid", "=", link.uuid)
      .executeTakeFirst();
    if (!response) throw notFound("Response");
    const answers = await matchAnswersOf(deps.db, response.uuid);
    const hit = matchRule(conditions, match, answers, labels, words) ?? { reasons: ["(no match)"], quoteAnswer: answers.find((a) => a.text) ?? null };
    message = messageOf(link.name, { name }, hit, responseConsoleUrl(deps.publicUrl, response.uuid), 0, lang);
  } else {
    const reasons = conditions.map((c) => matchRule([c], "any", sampleAnswersFor(c), labels, words)?.reasons[0] ?? c.type);
    message = sampleMessage(link.name, name, reasons, responseConsoleUrl(deps.publicUrl, "00000000-0000-4000-8000-000000000000"), lang);
  }
  const summary = { reasons: message.reasons, sentiment: message.sentiment, quote: message.quote, response_url: message.responseUrl };
  if (dest.kind === "email") {
    const mail = emailMessage(message);
    const to = recipientsOf(dest.url);
    const headers = { to: to.join(", "), subject: mail.subject, "content-language": mail.lang };
    const email = { to, subject: mail.subject, text: mail.text, html: mail.html };
    return { kind: dest.kind, method: "SMTP" as const, url: dest.url, headers, body: mail.text, message: summary, email };
  }
  const request = requestFor(dest, message, "earshot-preview");
  const headers = request.bearer ? { ...request.headers, authorization: "Bearer …" } : request.headers;
  return {
    kind: dest.kind,
    method: request.method,
    url: request.url,
    headers,
    body: request.body,
    message: summary,
    email: null,
  };
}

/** A sample answer satisfying `c` (its reason text names the condition as a real match would). */
function sampleAnswersFor(c: AlertCondition) {
  return [
    {
      uuid: "",
      text: c.type === "keyword" ? c.keyword : "sample",
      sentiment: "negative",
      actionable: true,
      nps: 3,
      themeUuid: c.type === "theme" ? c.theme_uuid : null,
    },
  ];
}
