/**
 * @module bench/webhooks
 * Webhook delivery figures (DESIGN §8): deliveries per second from a backlog to a local HTTPS
 * receiver, and the delay from a respondent's submit to the `response.submitted` delivery
 * arriving (p50/p99/max), with the real app, outbox, dispatcher and receiver in one process
 * over a real SQLite file. Prints figures; asserts nothing about time.
 *
 *   npx bun bench/webhooks.ts [--events 1000] [--responses 200] [--concurrency 4] [--per-webhook 2] [--gap-ms 10] [--pinned]
 *
 * Every event goes to one webhook, so `--per-webhook` (the dispatcher's cap of deliveries in flight
 * per webhook, default 2; docs/webhooks.md "Fairness") bounds the throughput as much as `--concurrency`.
 *
 * By default the receiver's host name (`localhost`) is allow-listed, so requests go by name and
 * reuse connections. `--pinned` allow-lists only its addresses: every delivery then resolves the
 * name, checks the addresses and connects to a checked one with a TLS handshake of its own — the
 * path every non-listed receiver takes in production.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createAppDeps } from "../src/app-deps.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { createDispatcher, type Dispatcher } from "../src/outbox/dispatcher.ts";
import { enqueueEventForWebhook } from "../src/outbox/enqueue.ts";
import { createWorkspace } from "../src/modules/workspaces/service.ts";
import { startHttpsReceiver } from "../test/helpers/https-receiver.ts";

const { values: flags } = parseArgs({
  options: {
    events: { type: "string", default: "1000" },
    responses: { type: "string", default: "200" },
    concurrency: { type: "string", default: "4" },
    "per-webhook": { type: "string", default: "2" },
    "gap-ms": { type: "string", default: "10" },
    pinned: { type: "boolean", default: false },
  },
});
const EVENTS = Number(flags.events);
const RESPONSES = Number(flags.responses);
const CONCURRENCY = Number(flags.concurrency);
const PER_WEBHOOK = Number(flags["per-webhook"]);
const caps = { concurrency: CONCURRENCY, perWebhook: PER_WEBHOOK, perWorkspace: Math.max(4, PER_WEBHOOK) };
const GAP_MS = Number(flags["gap-ms"]);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const receiver = await startHttpsReceiver();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-bench-webhooks-"));
const config = loadConfig(
  {
    EARSHOT_ALLOW_INSECURE_HTTP: "1",
    EARSHOT_PUBLIC_URL: "http://localhost",
    EARSHOT_LOG_LEVEL: "silent",
    EARSHOT_WEBHOOK_ALLOW_HOSTS: flags.pinned ? "127.0.0.1,::1" : "localhost",
    EARSHOT_WEBHOOK_CA_FILE: receiver.certs.caFile,
    // One client sends every session: the per-address session limit (DESIGN §9) would refuse most.
    EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0",
  },
  { dataDir },
);
const log = createLogger("silent");
let dispatcher: Dispatcher | null = null;
// The app as src/server.ts wires it (src/app-deps.ts); the inference worker is started lazily by
// the first request that needs it, and this bench's questions never do.
const wiring = await createAppDeps(config, { log, signingSecret: "bench", webAssets: new Map(), nudgeOutbox: () => dispatcher?.nudge() });
const { app, db } = wiring;
dispatcher = createDispatcher({ db, log, config, ...caps });
const ws = await createWorkspace(db, { name: "Bench", plan: "enterprise" });
async function call(method: string, p: string, body?: unknown, key: string | null = ws.api_key): Promise<any> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await app.handle(new Request(`http://localhost${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  return res.json();
}

// 1. Throughput: a backlog of test events, drained by a freshly started dispatcher.
const hookPath = `/api/v1/workspaces/${ws.workspace_uuid}/webhooks/`;
const backlogHook = await call("POST", hookPath, { url: receiver.url.replace("/hook", "/backlog"), events: ["response.started"] });
await db.transaction().execute(async (trx) => {
  for (let i = 0; i < EVENTS; i++) {
    await enqueueEventForWebhook(trx, { workspaceUuid: ws.workspace_uuid, webhookUuid: backlogHook.uuid, type: "webhook.test", data: { n: i } });
  }
});
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await dispatcher.start();
await receiver.waitFor((rs) => rs.length >= EVENTS, 600_000);
const drainS = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
// CPU time of this process (dispatcher and receiver together) per delivery: steadier than the
// wall-clock rate on a shared machine, and 1,000/s needs it under 1 ms on one core.
const cpuMsPerDelivery = (cpu.user + cpu.system) / 1000 / EVENTS;
await call("PATCH", `${hookPath}${backlogHook.uuid}/`, { enabled: false });

// 2. Submit → delivery delay: one response every GAP_MS through the public intake API.
await dispatcher.stop();
dispatcher = createDispatcher({ db, log, config, ...caps });
await dispatcher.start();
await call("POST", hookPath, { url: receiver.url.replace("/hook", "/submitted"), events: ["response.submitted"] });
const link = await call("POST", "/api/v1/links/", {
  name: "Bench link",
  questions: [
    { prompt: "How would you rate us?", type: "rating", configuration: { scale_type: "stars", max_value: 5 } },
    { prompt: "Which plan?", type: "multiple_choice", configuration: { options: ["Free", "Pro"] } },
  ],
});
const intake = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
const submittedAt = new Map<string, number>();
for (let i = 0; i < RESPONSES; i++) {
  const s = await call("POST", intake, {}, null);
  await call("PUT", `${intake}${s.session_id}/answers/${link.questions[0].uuid}/`, { value: 1 + (i % 5) }, null);
  await call("PUT", `${intake}${s.session_id}/answers/${link.questions[1].uuid}/`, { value: "Pro" }, null);
  submittedAt.set(s.response_uuid, Date.now());
  await call("POST", `${intake}${s.session_id}/submit/`, {}, null);
  if (GAP_MS) await Bun.sleep(GAP_MS);
}
const arrivals = () => receiver.requests.filter((r) => r.path === "/submitted");
await receiver.waitFor(() => arrivals().length >= RESPONSES, 120_000);
const delays = arrivals()
  .map((r) => r.receivedAtMs - submittedAt.get(JSON.parse(r.body).data.response.uuid)!)
  .sort((a, b) => a - b);

console.log(
  `Webhooks bench — Bun ${Bun.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), concurrency ${CONCURRENCY}, ${PER_WEBHOOK} per webhook, ${flags.pinned ? "pinned addresses" : "allow-listed host name"}`,
);
console.log(
  `throughput: ${EVENTS} queued events delivered in ${drainS.toFixed(2)} s = ${(EVENTS / drainS).toFixed(0)} deliveries/s; process CPU ${cpuMsPerDelivery.toFixed(2)} ms per delivery (dispatcher + receiver); load average ${os.loadavg()[0]!.toFixed(1)}`,
);
console.log(
  `submit → delivery (${RESPONSES} responses, one every ${GAP_MS} ms): p50 ${pct(delays, 50)} ms, p99 ${pct(delays, 99)} ms, max ${delays.at(-1)} ms`,
);

await dispatcher.stop();
await receiver.close();
await wiring.close();
fs.rmSync(dataDir, { recursive: true, force: true });
