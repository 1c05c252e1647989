/**
 * @module test/helpers/delivery-harness
 * The set-up the webhook and alert tests share: a test API whose outbox may reach a real HTTPS
 * receiver on this machine (its host allowed, its CA trusted, a fast retry schedule), the real
 * dispatcher, and optionally the real job runner with the fixture models; plus the intake steps
 * that make a response (start a session, answer, submit) and the wait for its analysis.
 */
import { expect } from "bun:test";
import { createLogger } from "../../src/logger.ts";
import { createDispatcher, type Dispatcher } from "../../src/outbox/dispatcher.ts";
import { createTestApi, type TestApi } from "./api.ts";
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type TestCertificates } from "./https-receiver.ts";
import { startProcessing, waitFor } from "./processing.ts";

/** Ten retries 0.3 s apart: a retried delivery is seen within seconds. */
export const FAST_SCHEDULE = "0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3";

/** API + dispatcher + receiver (+ job runner); `close()` stops them all. */
export type DeliveryHarness = {
  api: TestApi;
  dispatcher: Dispatcher;
  receiver: HttpsReceiver;
  /** The workspace's webhooks collection path. */
  wsPath: string;
  close(): Promise<void>;
};

/**
 * Starts a receiver with `certs`, a test API allowed to deliver to it, and the dispatcher.
 * @param opts.env more environment (overrides the allow list, schedule, poll interval)
 * @param opts.timeoutMs the dispatcher's request timeout (ms; default 2000)
 * @param opts.processing also run the real job runner and inference worker (fixture models)
 */
export async function startDeliveryHarness(
  certs: TestCertificates,
  opts: { env?: Record<string, string>; timeoutMs?: number; processing?: boolean } = {},
): Promise<DeliveryHarness> {
  const receiver = await startHttpsReceiver({ certs });
  const api = await createTestApi({
    EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost",
    EARSHOT_WEBHOOK_CA_FILE: certs.caFile,
    EARSHOT_WEBHOOK_RETRY_SCHEDULE_S: FAST_SCHEDULE,
    EARSHOT_OUTBOX_POLL_MS: "50",
    ...opts.env,
  });
  const dispatcher = createDispatcher({ db: api.db, log: createLogger("silent"), config: api.config, timeoutMs: opts.timeoutMs ?? 2000 });
  await dispatcher.start();
  const processing = opts.processing ? await startProcessing(api) : null;
  return {
    api,
    dispatcher,
    receiver,
    wsPath: `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`,
    async close() {
      await processing?.stop();
      await dispatcher.stop();
      await receiver.close();
      await api.close();
    },
  };
}

/**
 * Starts a session on the link, answers each question of `values` (question uuid → value), and
 * submits, all through the public intake API.
 * @returns the response uuid
 */
export async function submitResponse(api: TestApi, linkSlug: string, values: Record<string, unknown>): Promise<string> {
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${linkSlug}/sessions/`;
  const s = await api.call("POST", base, { body: {}, key: null });
  expect(s.status).toBe(201);
  for (const [question, value] of Object.entries(values)) {
    expect((await api.call("PUT", `${base}${s.json.session_id}/answers/${question}/`, { body: { value }, key: null })).status).toBe(200);
  }
  expect((await api.call("POST", `${base}${s.json.session_id}/submit/`, { body: {}, key: null })).status).toBe(200);
  return s.json.response_uuid;
}

/** Waits until the response's analysis is committed (its alerts and `response.submitted` had their chance). */
export async function waitAnalysed(api: TestApi, responseUuid: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => (await api.db.selectFrom("responses").select("submitted_event_at").where("uuid", "=", responseUuid).executeTakeFirst())?.submitted_event_at,
    timeoutMs,
    "the response's analysis",
  );
}

/** The requests a receiver got on paths starting with `path`. */
export const requestsOn = (path: string) => (rs: ReceivedRequest[]) => rs.filter((r) => r.path.startsWith(path));
