/**
 * @module webhooks/service
 * Webhook endpoints (DESIGN §8): records, secrets (`whsec_` + base64 of 24 random bytes, shown
 * once), and the per-link webhook that `on_finished.webhook_url` creates.
 */
import { randomBytes } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import * as repo from "./repository.ts";

type Q = Kysely<Database> | Transaction<Database>;

export const WEBHOOK_EVENTS = ["response.started", "response.submitted"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A new signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return "whsec_" + randomBytes(24).toString("base64");
}

/**
 * Checks that a webhook URL is an absolute https URL (spec: Webhook url must be HTTPS).
 * @throws AppError VALIDATION_ERROR at `pointer`
 */
export function assertHttpsUrl(url: string, pointer: string): void {
  let ok = false;
  try {
    const u = new URL(url);
    ok = u.protocol === "https:" && u.hostname.length > 0 && !u.username && !u.password;
  } catch {
    ok = false;
  }
  if (!ok) throw new AppError("VALIDATION_ERROR", "The webhook url must be an absolute https URL.", { errors: [{ pointer, message: "Must be an https URL." }] });
}

/**
 * Creates the `response.submitted` webhook limited to one link (`on_finished`, DESIGN §8).
 * @throws AppError VALIDATION_ERROR when the url is not https
 */
export async function createLinkWebhook(db: Q, workspaceUuid: string, linkUuid: string, url: string, secret?: string): Promise<string> {
  assertHttpsUrl(url, "/on_finished/webhook_url");
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
export async function deleteWebhooksOfLink(db: Q, linkUuid: string): Promise<void> {
  await repo.deleteWebhooksOfLink(db, linkUuid);
}
