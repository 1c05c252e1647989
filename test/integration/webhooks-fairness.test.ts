/**
 * Fairness of webhook delivery across tenants (issue 9 item 10, docs/webhooks.md "Fairness"): one
 * workspace's receiver hangs until the attempt times out while 40 of its events are queued (40
 * anonymous session starts); another workspace's event to a healthy receiver must still leave at
 * once. Real SQLite file, real dispatcher, real HTTPS receiver over real sockets.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLogger } from "../../src/logger.ts";
import { createDispatcher, type Dispatcher } from "../../src/outbox/dispatcher.ts";
import { claimDueDeliveries } from "../../src/outbox/repository.ts";
import { createTestApi, type TestApi } from "../helpers/api.ts";
import { startHttpsReceiver, type HttpsReceiver } from "../helpers/https-receiver.ts";

/** Attempt timeout of this test's dispatcher: short, but far above a healthy delivery. */
const TIMEOUT_MS = 5000;
const SLOW_EVENTS = 40;

let api: TestApi;
let receiver: HttpsReceiver;
let dispatcher: Dispatcher;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  api = await createTestApi({
    EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost",
    EARSHOT_WEBHOOK_CA_FILE: receiver.certs.caFile,
    EARSHOT_OUTBOX_POLL_MS: "50",
    EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0",
  });
  dispatcher = createDispatcher({ db: api.db, log: createLogger("silent"), config: api.config, timeoutMs: TIMEOUT_MS });
  await dispatcher.start();
});

afterAll(async () => {
  await receiver.close();
  await dispatcher.stop();
  await api.close();
});

/** A workspace's link with one text question and a `response.started` webhook to `hookPath`. */
async function tenant(key: string, workspaceUuid: string, hookPath: string) {
  const link = await api.call("POST", "/api/v1/links/", { key, body: { name: `Link ${hookPath}`, questions: [{ prompt: "Anything else?", type: "text" }] } });
  expect(link.status).toBe(201);
  const hook = await api.call("POST", `/api/v1/workspaces/${workspaceUuid}/webhooks/`, {
    key,
    body: { url: receiver.url.replace("/hook", hookPath), events: ["response.started"] },
  });
  expect(hook.status).toBe(201);
  return link.json as { slug: string };
}

async function startSession(workspaceSlug: string, linkSlug: string): Promise<string> {
  const s = await api.call("POST", `/api/v1/intake/${workspaceSlug}/${linkSlug}/sessions/`, { body: {}, key: null });
  expect(s.status).toBe(201);
  return s.json.response_uuid as string;
}

test("a receiver that hangs with 40 queued events does not delay another workspace's delivery", async () => {
  receiver.setBehavior({ delayMs: 60_000 }, "/slow");
  const slowLink = await tenant(api.ws.api_key, api.ws.workspace_uuid, "/slow");
  for (let i = 0; i < SLOW_EVENTS; i++) await startSession(api.ws.workspace_slug, slowLink.slug);
  // The hung receiver now holds the deliveries the dispatcher gave it.
  await receiver.waitFor((rs) => rs.some((r) => r.path === "/slow"), 10_000);
  await Bun.sleep(200);

  const other = await api.newWorkspace("Healthy tenant");
  const healthyLink = await tenant(other.api_key, other.workspace_uuid, "/healthy");
  const queuedAt = Date.now();
  const responseUuid = await startSession(other.workspace_slug, healthyLink.slug);
  const [arrived] = (await receiver.waitFor((rs) => rs.some((r) => r.path === "/healthy"), 4 * TIMEOUT_MS)).filter((r) => r.path === "/healthy");
  expect(arrived!.body).toContain(responseUuid);
  const delayMs = arrived!.receivedAtMs - queuedAt;
  // Before fairness, 4 global slots held by the hung receiver made it wait at least one timeout.
  expect(delayMs).toBeLessThan(2000);

  // The hung receiver holds no more than its webhook's cap of deliveries at a time.
  // The hung workspace's only (the healthy delivery may still be being recorded as delivered).
  const inFlight = await api.db
    .selectFrom("webhook_deliveries")
    .innerJoin("webhooks", "webhooks.uuid", "webhook_deliveries.webhook_uuid")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("webhook_deliveries.state", "=", "delivering")
    .where("webhooks.workspace_uuid", "=", api.ws.workspace_uuid)
    .executeTakeFirstOrThrow();
  expect(Number(inFlight.n)).toBeLessThanOrEqual(2);
  // Counted before the first of them can time out: on a slow machine the timed-out ones are
  // retried later, which is not more at a time.
  const slow = receiver.requests.filter((r) => r.path === "/slow");
  const firstSlowAt = Math.min(...slow.map((r) => r.receivedAtMs));
  expect(slow.filter((r) => r.receivedAtMs < firstSlowAt + TIMEOUT_MS).length).toBeLessThanOrEqual(2);
}, 60_000);

test("a claim is round-robin across workspaces and webhooks and respects both caps, live leases included", async () => {
  const own = await createTestApi();
  try {
    const other = await own.newWorkspace("Other");
    const hook = async (key: string, ws: string) =>
      (await own.call("POST", `/api/v1/workspaces/${ws}/webhooks/`, { key, body: { url: "https://hooks.example.com/x", events: ["response.started"] } })).json
        .uuid as string;
    const a1 = await hook(own.ws.api_key, own.ws.workspace_uuid);
    const a2 = await hook(own.ws.api_key, own.ws.workspace_uuid);
    const b1 = await hook(other.api_key, other.workspace_uuid);
    const owner = new Map<string, string>();
    // Workspace A's events are all older than B's.
    for (const [h, key, ws] of [
      [a1, own.ws.api_key, own.ws.workspace_uuid],
      [a2, own.ws.api_key, own.ws.workspace_uuid],
      [b1, other.api_key, other.workspace_uuid],
    ] as const) {
      for (let i = 0; i < 5; i++) owner.set((await own.call("POST", `/api/v1/workspaces/${ws}/webhooks/${h}/test/`, { key })).json.uuid, h);
    }
    const limits = { limit: 3, perWebhook: 2, perWorkspace: 3 };
    const claim = async (limit: number) => (await claimDueDeliveries(own.db, { ...limits, limit }, 60)).map((d) => owner.get(d.uuid)!).sort();
    // Oldest-first would take a1 ×3. Round 1: each workspace's first (a1, b1); round 2: A's other webhook (a2) before B's second.
    expect(await claim(3)).toEqual([a1, a2, b1].sort());
    // Live leases count: A may have 3 in flight (a1's second), B's webhook 2 (b1's second).
    expect(await claim(10)).toEqual([a1, b1].sort());
    expect(await claim(10)).toEqual([]);
  } finally {
    await own.close();
  }
});
