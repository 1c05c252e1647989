/**
 * The document's `webhooks` section against real deliveries: the real dispatcher POSTs
 * `response.started`, `response.submitted` (with `rating_details` and `selected_card`) and
 * `webhook.test` to a real HTTPS receiver, and each body and `webhook-*` header must match the
 * schema the document gives it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLogger } from "../logger.ts";
import { createDispatcher, type Dispatcher } from "../outbox/dispatcher.ts";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from "../../test/helpers/https-receiver.ts";
import { outputChecker } from "../../test/helpers/openapi-check.ts";

let certs: TestCertificates;
let receiver: HttpsReceiver;
let api: TestApi;
let dispatcher: Dispatcher;

beforeAll(async () => {
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver({ certs });
  api = await createTestApi({ EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost", EARSHOT_WEBHOOK_CA_FILE: certs.caFile, EARSHOT_OUTBOX_POLL_MS: "50" });
  dispatcher = createDispatcher({ db: api.db, log: createLogger("silent"), config: api.config, timeoutMs: 2000 });
  await dispatcher.start();
});
afterAll(async () => {
  await dispatcher.stop();
  await receiver.close();
  await api.close();
});

test("response.started, response.submitted and webhook.test deliveries match the document's webhooks section", async () => {
  const hook = await api.call("POST", `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`, {
    body: { url: receiver.url, events: ["response.started", "response.submitted"] },
  });
  expect(hook.status).toBe(201);
  const link = await api.call("POST", "/api/v1/links/", {
    body: {
      name: "Webhook shapes",
      questions: [
        { prompt: "How would you rate us?", type: "rating", configuration: { scale_type: "nps" } },
        { prompt: "Pick a design", type: "image_choice", configuration: { cards: [{ id: "a", label: "Design A", media_url: "https://example.com/a.png" }] } },
        { prompt: "Which plan?", type: "multiple_choice", configuration: { options: ["Free", "Pro"] } },
      ],
    },
  });
  expect(link.status).toBe(201);
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}/sessions/`;
  const s = await api.call("POST", base, { body: {}, key: null });
  expect(s.status).toBe(201);
  const values = { rating: 9, image_choice: "a", multiple_choice: "Pro" } as Record<string, unknown>;
  for (const q of link.json.questions)
    expect((await api.call("PUT", `${base}${s.json.session_id}/answers/${q.uuid}/`, { body: { value: values[q.response_type] }, key: null })).status).toBe(200);
  expect((await api.call("POST", `${base}${s.json.session_id}/submit/`, { body: {}, key: null })).status).toBe(200);
  expect((await api.call("POST", `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/${hook.json.uuid}/test/`)).status).toBe(202);

  const types = ["response.started", "response.submitted", "webhook.test"];
  const received = await receiver.waitFor((rs) => types.every((t) => rs.some((r) => r.body.includes(`"type":"${t}"`))));
  for (const t of types) {
    const req = received.find((r) => r.body.includes(`"type":"${t}"`))!;
    expect(() => outputChecker().checkWebhook(req.headers, req.body)).not.toThrow();
  }
  const submitted = JSON.parse(received.find((r) => r.body.includes('"type":"response.submitted"'))!.body);
  const answers = submitted.data.response.answers as Record<string, unknown>[];
  expect(answers.find((a) => a.response_type === "rating")!.rating_details).toEqual({ value: 9, max_value: 10, scale_type: "nps" });
  expect(answers.find((a) => a.response_type === "image_choice")!.selected_card).toMatchObject({ card_id: "a", media_type: "image" });
  // And a payload that drifts is caught.
  const drifted = { ...submitted, data: { ...submitted.data, link: { uuid: submitted.data.link.uuid } } };
  expect(() => outputChecker().checkWebhook(received[0]!.headers, JSON.stringify(drifted))).toThrow(/OpenAPI drift/);
});
