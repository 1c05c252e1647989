/**
 * @module webhooks/service
 * Webhook endpoints (DESIGN §8): records, secrets (`whsec_` + base64 of 24 random bytes, shown
 * once; rotation keeps the previous secret signing for 24 h), the URL rules (https, no literal
 * forbidden address), and the per-link webhook that `on_finished.webhook_url` creates.
 */
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { isoAfter, nowIso } from "../../clock.ts";
import type { Database, Executor } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import type { AuthContext, Authenticator } from "../../auth/authenticate.ts";
import { literalHostRefusal } from "../../outbox/url-guard.ts";
import { isUuid } from "../../shared/uuid.ts";
import { isHttpsUrl, WEBHOOK_EVENTS, type CreateWebhookInput, type PatchWebhookInput, type Webhook, type WebhookEvent } from "./model.ts";
import * as repo from "./repository.ts";

export { WEBHOOK_EVENTS, type WebhookEvent };

/** What the webhook services need. */
export type WebhookDeps = { db: Kysely<Database>; auth: Authenticator; allowHosts: readonly string[]; nudgeOutbox: () => void };

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_S = 24 * 3600;

/** A new signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return "whsec_" + randomBytes(24).toString("base64");
}

/**
 * Checks that a webhook URL is an absolute https URL (spec: Webhook url must be HTTPS).
 * @throws AppError VALIDATION_ERROR at `pointer`
 */
export function assertHttpsUrl(url: string, pointer: string): void {
  if (!isHttpsUrl(url))
    throw new AppError("VALIDATION_ERROR", "The webhook url must be an absolute https URL.", { errors: [{ pointer, message: "Must be an https URL." }] });
}

/**
 * Refuses a URL whose host is a literal loopback, link-local, unspecified or metadata address
 * that the operator did not allow (hostnames are checked at delivery, after resolution).
 * @throws AppError VALIDATION_ERROR at `pointer`
 */
export function assertDeliverableUrl(url: string, allowHosts: readonly string[], pointer: string): void {
  const refusal = literalHostRefusal(url, allowHosts);
  if (refusal)
    throw new AppError("VALIDATION_ERROR", `Webhooks may not target ${refusal}.`, { errors: [{ pointer, message: `Forbidden address: ${refusal}.` }] });
}

/** Maps a stored row to the API's webhook record. */
export function toWebhook(row: repo.WebhookRow): Webhook {
  return {
    uuid: row.uuid,
    url: row.url,
    events: row.events.split(" ").filter(Boolean) as WebhookEvent[],
    enabled: row.enabled === 1,
    link_uuid: row.link_uuid,
    disabled_reason: row.disabled_reason,
    date_created: row.date_created,
    date_updated: row.date_updated,
    last_delivery_at: row.last_delivery_at,
    last_delivery_status: row.last_delivery_status,
  };
}

/**
 * The path's workspace must be the key's (DESIGN §4: another workspace answers 404).
 * @throws AppError NOT_FOUND
 */
export function assertOwnWorkspace(auth: AuthContext, workspaceUuid: string): void {
  if (workspaceUuid.toLowerCase() !== auth.workspaceUuid.toLowerCase()) throw notFound("Workspace");
}

/**
 * One webhook of the key's workspace.
 * @throws AppError NOT_FOUND (also for malformed or foreign uuids)
 */
export async function findOwnWebhook(db: Executor, auth: AuthContext, workspaceUuid: string, uuid: string): Promise<repo.WebhookRow> {
  assertOwnWorkspace(auth, workspaceUuid);
  const row = isUuid(uuid) ? await repo.findWebhook(db, auth.workspaceUuid, uuid.toLowerCase()) : undefined;
  if (!row) throw notFound("Webhook");
  return row;
}

/** A page of the workspace's webhooks, newest first. */
export async function listWebhooks(deps: WebhookDeps, auth: AuthContext, workspaceUuid: string, limit: number, offset: number) {
  assertOwnWorkspace(auth, workspaceUuid);
  const { rows, count } = await repo.listWebhooks(deps.db, auth.workspaceUuid, limit, offset);
  return { count, results: rows.map(toWebhook) };
}

/**
 * Creates a webhook for the whole workspace, or for one of its links (`link_uuid`).
 * @returns the record plus `secret` (shown only here)
 * @throws AppError NOT_FOUND (workspace), VALIDATION_ERROR (forbidden address; `/link_uuid` names
 *   no link of the workspace), UNAUTHENTICATED (revoked meanwhile)
 */
export async function createWebhook(deps: WebhookDeps, auth: AuthContext, workspaceUuid: string, input: CreateWebhookInput) {
  assertOwnWorkspace(auth, workspaceUuid);
  assertDeliverableUrl(input.url, deps.allowHosts, "/url");
  const linkUuid = input.link_uuid ?? null;
  if (linkUuid !== null && !(await repo.linkExists(deps.db, auth.workspaceUuid, linkUuid))) {
    throw new AppError("VALIDATION_ERROR", "The webhook's link filter names no link of this workspace.", {
      errors: [{ pointer: "/link_uuid", message: "No link of this workspace has this uuid." }],
    });
  }
  const now = nowIso();
  const row: repo.WebhookRow = {
    uuid: crypto.randomUUID(),
    workspace_uuid: auth.workspaceUuid,
    link_uuid: linkUuid,
    url: input.url,
    events: input.events.join(" "),
    enabled: input.enabled ? 1 : 0,
    secret: generateWebhookSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    disabled_reason: input.enabled ? null : "Disabled through the API.",
    failing_since: null,
    last_delivery_at: null,
    last_delivery_status: null,
    date_created: now,
    date_updated: now,
  };
  await deps.db.transaction().execute(async (trx) => {
    await repo.insertWebhook(trx, row);
    await deps.auth.assertActive(trx, auth);
  });
  return { ...toWebhook(row), secret: row.secret };
}

/**
 * Updates url, events and/or enabled. Enabling clears `disabled_reason` and the failure streak.
 * @throws AppError NOT_FOUND, VALIDATION_ERROR, UNAUTHENTICATED
 */
export async function patchWebhook(deps: WebhookDeps, auth: AuthContext, workspaceUuid: string, uuid: string, input: PatchWebhookInput): Promise<Webhook> {
  if (input.url !== undefined) assertDeliverableUrl(input.url, deps.allowHosts, "/url");
  return deps.db.transaction().execute(async (trx) => {
    const row = await findOwnWebhook(trx, auth, workspaceUuid, uuid);
    const patch: Partial<repo.WebhookRow> = { date_updated: nowIso() };
    if (input.url !== undefined) patch.url = input.url;
    if (input.events !== undefined) patch.events = input.events.join(" ");
    if (input.enabled === true && row.enabled !== 1) Object.assign(patch, { enabled: 1, disabled_reason: null, failing_since: null });
    if (input.enabled === false && row.enabled === 1) Object.assign(patch, { enabled: 0, disabled_reason: "Disabled through the API." });
    await repo.updateWebhook(trx, row.uuid, patch);
    await deps.auth.assertActive(trx, auth);
    return toWebhook({ ...row, ...patch });
  });
}

/**
 * Deletes a webhook and its delivery logs.
 * @throws AppError NOT_FOUND, UNAUTHENTICATED
 */
export async function deleteWebhook(deps: WebhookDeps, auth: AuthContext, workspaceUuid: string, uuid: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await findOwnWebhook(trx, auth, workspaceUuid, uuid);
    await repo.deleteWebhook(trx, row.uuid);
    await deps.auth.assertActive(trx, auth);
  });
}

/**
 * Replaces the signing secret; the previous one keeps signing (second signature) for 24 h.
 * @returns the record with the new `secret` and `previous_secret_expires_at`
 * @throws AppError NOT_FOUND, UNAUTHENTICATED
 */
export async function rotateWebhookSecret(deps: WebhookDeps, auth: AuthContext, workspaceUuid: string, uuid: string) {
  return deps.db.transaction().execute(async (trx) => {
    const row = await findOwnWebhook(trx, auth, workspaceUuid, uuid);
    const patch = {
      secret: generateWebhookSecret(),
      previous_secret: row.secret,
      previous_secret_expires_at: isoAfter(SECRET_OVERLAP_S),
      date_updated: nowIso(),
    };
    await repo.updateWebhook(trx, row.uuid, patch);
    await deps.auth.assertActive(trx, auth);
    return { ...toWebhook({ ...row, ...patch }), secret: patch.secret, previous_secret_expires_at: patch.previous_secret_expires_at };
  });
}

/**
 * Creates the `response.submitted` webhook limited to one link (`on_finished`, DESIGN §8).
 * @throws AppError VALIDATION_ERROR when the url is not https or names a forbidden address
 */
export async function createLinkWebhook(
  db: Executor,
  workspaceUuid: string,
  linkUuid: string,
  url: string,
  secret: string | undefined,
  allowHosts: readonly string[],
): Promise<string> {
  assertHttpsUrl(url, "/on_finished/webhook_url");
  assertDeliverableUrl(url, allowHosts, "/on_finished/webhook_url");
  const now = nowIso();
  const uuid = crypto.randomUUID();
  await repo.insertWebhook(db, {
    uuid,
    workspace_uuid: workspaceUuid,
    link_uuid: linkUuid,
    url,
    events: "response.submitted",
    enabled: 1,
    secret: secret ?? generateWebhookSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    disabled_reason: null,
    failing_since: null,
    last_delivery_at: null,
    last_delivery_status: null,
    date_created: now,
    date_updated: now,
  });
  return uuid;
}

/** Removes the webhooks that belong to one link (when the link is deleted). */
export async function deleteWebhooksOfLink(db: Executor, linkUuid: string): Promise<void> {
  await repo.deleteWebhooksOfLink(db, linkUuid);
}
