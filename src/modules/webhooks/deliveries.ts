/**
 * @module webhooks/deliveries
 * Delivery logs, redelivery and test events of one webhook (DESIGN §8). Redelivery keeps the
 * event's `webhook-id`: a finished delivery gets a new delivery row (its own attempts and retry
 * schedule) for the same event; a delivery still waiting for a retry is simply made due now.
 */
import { nowIso } from "../../clock.ts";
import type { Executor } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import type { AuthContext } from "../../auth/authenticate.ts";
import { enqueueEventForWebhook } from "../../outbox/enqueue.ts";
import { insertDelivery } from "../../outbox/repository.ts";
import { isUuid } from "../../shared/uuid.ts";
import { TEST_EVENT, type Delivery, type DeliveryDetail } from "./model.ts";
import type { WebhookEventData } from "./event-schemas.ts";
import * as repo from "./repository.ts";
import { findOwnWebhook, type WebhookDeps } from "./service.ts";

/** Maps a delivery-log row to the API's delivery record. */
export function toDelivery(row: repo.DeliveryLogRow): Delivery {
  return {
    uuid: row.uuid,
    event_id: row.event_uuid,
    event_type: row.event_type as Delivery["event_type"],
    state: row.state,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    response_excerpt: row.last_response_excerpt,
    duration_ms: row.last_duration_ms,
    last_error: row.last_error,
    next_attempt_at: row.next_attempt_at,
    date_created: row.date_created,
    date_updated: row.date_updated,
  };
}

async function findOwnDelivery(db: Executor, auth: AuthContext, workspaceUuid: string, webhookUuid: string, uuid: string) {
  const hook = await findOwnWebhook(db, auth, workspaceUuid, webhookUuid);
  const row = isUuid(uuid) ? await repo.findDelivery(db, hook.uuid, uuid.toLowerCase()) : undefined;
  if (!row) throw notFound("Delivery");
  return { hook, row };
}

/**
 * A page of a webhook's deliveries, newest first.
 * @throws AppError NOT_FOUND
 */
export async function listDeliveries(
  deps: WebhookDeps,
  auth: AuthContext,
  workspaceUuid: string,
  webhookUuid: string,
  state: Delivery["state"] | undefined,
  limit: number,
  offset: number,
) {
  const hook = await findOwnWebhook(deps.db, auth, workspaceUuid, webhookUuid);
  const { rows, count } = await repo.listDeliveries(deps.db, hook.uuid, state, limit, offset);
  return { count, results: rows.map(toDelivery) };
}

/**
 * One delivery with every attempt (`attempt_log`).
 * @throws AppError NOT_FOUND
 */
export async function getDelivery(deps: WebhookDeps, auth: AuthContext, workspaceUuid: string, webhookUuid: string, uuid: string): Promise<DeliveryDetail> {
  const { row } = await findOwnDelivery(deps.db, auth, workspaceUuid, webhookUuid, uuid);
  const attempts = await repo.attemptsOf(deps.db, row.uuid);
  return {
    ...toDelivery(row),
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      status_code: a.status_code,
      response_excerpt: a.response_excerpt,
      duration_ms: a.duration_ms,
      error: a.error,
      date_created: a.date_created,
    })),
  };
}

/**
 * Sends the delivery's event again, with the same `webhook-id`.
 * @returns the delivery that will carry it (new for a finished delivery, the same otherwise)
 * @throws AppError NOT_FOUND; RESPONSE_ERASED (410) when the event's response was erased (its
 *   payload is redacted); VALIDATION_ERROR when the webhook is disabled (enable it first)
 */
export async function redeliver(deps: WebhookDeps, auth: AuthContext, workspaceUuid: string, webhookUuid: string, uuid: string): Promise<Delivery> {
  const deliveryUuid = await deps.db.transaction().execute(async (trx) => {
    const { hook, row } = await findOwnDelivery(trx, auth, workspaceUuid, webhookUuid, uuid);
    if (row.event_erased_at) {
      throw new AppError("RESPONSE_ERASED", `The response this event was about was erased at ${row.event_erased_at}; its event cannot be sent again.`);
    }
    if (hook.enabled !== 1) {
      throw new AppError("VALIDATION_ERROR", "The webhook is disabled; enable it (PATCH enabled: true) before redelivering.", {
        errors: [{ pointer: "/enabled", message: "The webhook is disabled." }],
      });
    }
    let target = row.uuid;
    if (row.state === "pending") await repo.makeDeliveryDueNow(trx, row.uuid, nowIso());
    else if (row.state !== "delivering") target = await insertDelivery(trx, row.event_uuid, hook.uuid);
    await deps.auth.assertActive(trx, auth);
    return target;
  });
  deps.nudgeOutbox();
  return toDelivery((await repo.findDelivery(deps.db, webhookUuid.toLowerCase(), deliveryUuid))!);
}

/** The `data` of a `webhook.test` event, typed by the schema the document publishes. */
function testEventData(workspaceUuid: string, webhookUuid: string): WebhookEventData<"webhook.test"> {
  return { workspace_uuid: workspaceUuid, webhook_uuid: webhookUuid, message: "This is a test event from Earshot." };
}

/**
 * Queues a signed `webhook.test` event for this webhook only (sent even while it is disabled).
 * @returns the new delivery
 * @throws AppError NOT_FOUND
 */
export async function sendTestEvent(deps: WebhookDeps, auth: AuthContext, workspaceUuid: string, webhookUuid: string): Promise<Delivery> {
  const deliveryUuid = await deps.db.transaction().execute(async (trx) => {
    const hook = await findOwnWebhook(trx, auth, workspaceUuid, webhookUuid);
    const { deliveryUuid } = await enqueueEventForWebhook(trx, {
      workspaceUuid: auth.workspaceUuid,
      webhookUuid: hook.uuid,
      type: TEST_EVENT,
      data: testEventData(auth.workspaceUuid, hook.uuid),
    });
    await deps.auth.assertActive(trx, auth);
    return deliveryUuid;
  });
  deps.nudgeOutbox();
  return toDelivery((await repo.findDelivery(deps.db, webhookUuid.toLowerCase(), deliveryUuid))!);
}
