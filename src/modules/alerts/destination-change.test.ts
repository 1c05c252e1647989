/**
 * A rule's queued alert is not sent once its destination changes (security review, 2026-11-28:
 * the outbox keeps the URL of when the alert fired, the Matrix token is read when it is sent, so a
 * retry after a change carried the new token to the old URL). Real API over the test app, the
 * real outbox tables; both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { enqueueEventForWebhook } from "../../outbox/enqueue.ts";
import { DESTINATION_CHANGED_ERROR } from "../../outbox/repository.ts";

let api: TestApi;

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost" });
});
afterAll(() => api.close());

async function ruleWithQueuedAlert() {
  const link = await api.call("POST", "/api/v1/links/", { body: { name: "Checkout", questions: [{ prompt: "How was it?", type: "text" }] } });
  expect(link.status).toBe(201);
  const rule = await api.call("POST", `/api/v1/links/${link.json.uuid}/alerts/`, {
    body: {
      name: "Ops room",
      conditions: [{ type: "negative" }],
      destination: { kind: "matrix", url: "https://127.0.0.1:9/", room: "!ops:example.org", token: "syt_old" },
    },
  });
  expect(rule.status).toBe(201);
  const row = await api.db.selectFrom("alert_rules").select("webhook_uuid").where("uuid", "=", rule.json.uuid).executeTakeFirstOrThrow();
  const queued = await api.db
    .transaction()
    .execute((trx) =>
      enqueueEventForWebhook(trx, { workspaceUuid: api.ws.workspace_uuid, webhookUuid: row.webhook_uuid, type: "alert", data: { alert: "x" } }),
    );
  return { link: link.json, rule: rule.json, deliveryUuid: queued.deliveryUuid };
}

const deliveryOf = (uuid: string) =>
  api.db.selectFrom("webhook_deliveries").select(["state", "last_error", "next_attempt_at"]).where("uuid", "=", uuid).executeTakeFirstOrThrow();

describe("changing an alert rule's destination", () => {
  test("ends the alerts queued for the old destination", async () => {
    const { link, rule, deliveryUuid } = await ruleWithQueuedAlert();
    expect((await deliveryOf(deliveryUuid)).state).toBe("pending");
    const patched = await api.call("PATCH", `/api/v1/links/${link.uuid}/alerts/${rule.uuid}/`, {
      body: { destination: { kind: "matrix", url: "https://localhost:9/", room: "!ops:example.org", token: "syt_new" } },
    });
    expect(patched.status).toBe(200);
    expect(await deliveryOf(deliveryUuid)).toEqual({ state: "failed", last_error: DESTINATION_CHANGED_ERROR, next_attempt_at: null });
  });

  test("a change that keeps the destination (name, limit) leaves them queued", async () => {
    const { link, rule, deliveryUuid } = await ruleWithQueuedAlert();
    const patched = await api.call("PATCH", `/api/v1/links/${link.uuid}/alerts/${rule.uuid}/`, { body: { name: "Ops room (renamed)", max_per_hour: 5 } });
    expect(patched.status).toBe(200);
    expect((await deliveryOf(deliveryUuid)).state).toBe("pending");
  });
});
