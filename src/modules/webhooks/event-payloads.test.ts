/**
 * Every webhook event producer against the schema the OpenAPI document publishes for its body
 * (issue 23): each event type is produced through the real code path — a session started and
 * submitted over the intake API, a response submitted after its link was deleted (the payload
 * then names the link by uuid only), `POST …/test/` — and every body stored in the outbox must
 * parse with `WEBHOOK_EVENT_SCHEMAS[type]` unchanged (nothing missing, nothing extra).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { WEBHOOK_EVENT_SCHEMAS as OWN_SCHEMAS } from "./event-schemas.ts";
import { RESPONSE_EVENT_SCHEMAS } from "../responses/event-schemas.ts";

/** Every event type Earshot sends, with its published schema. */
const WEBHOOK_EVENT_SCHEMAS = { ...RESPONSE_EVENT_SCHEMAS, ...OWN_SCHEMAS } as const;
type WebhookEventType = keyof typeof WEBHOOK_EVENT_SCHEMAS;

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost" });
});
afterAll(() => api.close());

type Stored = { type: string; body: { type: string; timestamp: string; data: Record<string, any> } };

/** The bodies in the outbox, oldest first (no dispatcher runs: they stay as the producers wrote them). */
async function storedEvents(): Promise<Stored[]> {
  const rows = await api.db.selectFrom("outbox_events").select(["type", "payload"]).orderBy("date_created").execute();
  return rows.map((r) => ({ type: r.type, body: JSON.parse(r.payload) }));
}

/** Starts a session on `slug`, answers every question with `values[type]` and submits it. */
async function respond(slug: string, questions: { uuid: string; response_type: string }[], values: Record<string, unknown>): Promise<void> {
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${slug}/sessions/`;
  const s = await api.call("POST", base, { body: {}, key: null });
  expect(s.status).toBe(201);
  for (const q of questions)
    expect((await api.call("PUT", `${base}${s.json.session_id}/answers/${q.uuid}/`, { body: { value: values[q.response_type] }, key: null })).status).toBe(200);
  expect((await api.call("POST", `${base}${s.json.session_id}/submit/`, { body: {}, key: null })).status).toBe(200);
}

test("every event type's producer writes a body its published schema accepts unchanged", async () => {
  const hook = await api.call("POST", `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`, {
    body: { url: "https://127.0.0.1:9/hook", events: ["response.started", "response.submitted"] },
  });
  expect(hook.status).toBe(201);

  // response.started and response.submitted: a rating needs no processing, so submitting queues both.
  const rated = await api.call("POST", "/api/v1/links/", {
    body: { name: "Rated", questions: [{ prompt: "How would you rate us?", type: "rating", configuration: { scale_type: "nps" } }] },
  });
  expect(rated.status).toBe(201);
  await respond(rated.json.slug, rated.json.questions, { rating: 9 });

  // response.submitted of a deleted link: the free-text answer's analysis runs after the delete.
  const gone = await api.call("POST", "/api/v1/links/", { body: { name: "Soon deleted", questions: [{ prompt: "Anything else?", type: "text" }] } });
  expect(gone.status).toBe(201);
  await respond(gone.json.slug, gone.json.questions, { text: "The checkout was slow and the button was hidden." });
  expect((await api.call("DELETE", `/api/v1/links/${gone.json.uuid}/`)).status).toBe(200);
  const processing = await startProcessing(api);
  try {
    await waitFor(
      async () => (await storedEvents()).filter((e) => e.type === "response.submitted").length === 2,
      60_000,
      "the deleted link's response.submitted",
    );
  } finally {
    await processing.stop();
  }

  // webhook.test.
  expect((await api.call("POST", `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/${hook.json.uuid}/test/`)).status).toBe(202);

  const events = await storedEvents();
  expect(new Set(events.map((e) => e.type))).toEqual(new Set(Object.keys(WEBHOOK_EVENT_SCHEMAS)));
  for (const e of events) {
    const schema = WEBHOOK_EVENT_SCHEMAS[e.type as WebhookEventType];
    const parsed = schema.safeParse(e.body);
    if (!parsed.success) throw new Error(`${e.type} does not match its published schema: ${JSON.stringify(parsed.error.issues)}`);
    // zod drops keys it does not know: an unchanged parse means the body has no field the schema lacks.
    expect(parsed.data as unknown).toEqual(e.body);
  }
  const orphan = events.find((e) => e.type === "response.submitted" && e.body.data.link.uuid === gone.json.uuid)!;
  expect(orphan.body.data.link).toEqual({ uuid: gone.json.uuid, name: null, slug: null });
});
