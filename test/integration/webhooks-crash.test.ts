/**
 * Crash safety of webhook delivery (DESIGN §1, §8): `earshot serve` as a real process, responses
 * submitted through the public intake API, the server killed with SIGKILL while deliveries are in
 * flight, then restarted on the same data directory. Every event must arrive at least once, and
 * copies of an event carry the same `webhook-id`. Every delivery is verified with the
 * `standardwebhooks` package.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from "../helpers/https-receiver.ts";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";

const RESPONSES = 6;
let certs: TestCertificates | null = null;
let receiver: HttpsReceiver | null = null;
let server: RunningServer | null = null;
const dataDir = mkdtempSync(path.join(tmpdir(), "earshot-crash-"));

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  if (certs) rmSync(certs.dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, urlPath: string, key: string | null, body?: unknown): Promise<any> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(server!.baseUrl + urlPath, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${urlPath} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

test("a SIGKILL mid-delivery loses no event; copies share their webhook-id", async () => {
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver({ certs });
  receiver.setBehavior({ delayMs: 1500 });
  const env = {
    EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost",
    EARSHOT_WEBHOOK_CA_FILE: certs.caFile,
    EARSHOT_WEBHOOK_RETRY_SCHEDULE_S: "1,1,1,1,1,1,1,1,1,1",
    EARSHOT_OUTBOX_POLL_MS: "100",
  };
  const cli = await runCli(["workspace", "create", "--name", "Crash test", "--plan", "pro", "--json"], { dataDir });
  expect(cli.code).toBe(0);
  const ws = JSON.parse(cli.stdout) as { workspace_uuid: string; workspace_slug: string; api_key: string };
  server = await startServer({ dataDir, env });

  const link = await call("POST", "/api/v1/links/", ws.api_key, {
    name: "Checkout feedback",
    questions: [
      { prompt: "What went wrong?", type: "text" },
      { prompt: "How would you rate checkout?", type: "rating", configuration: { scale_type: "nps" } },
    ],
  });
  const hookPath = `/api/v1/workspaces/${ws.workspace_uuid}/webhooks/`;
  const hook = await call("POST", hookPath, ws.api_key, { url: receiver.url, events: ["response.started", "response.submitted"] });

  const intake = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
  const responseUuids: string[] = [];
  for (let i = 0; i < RESPONSES; i++) {
    const s = await call("POST", intake, null, {});
    await call("PUT", `${intake}${s.session_id}/answers/${link.questions[0].uuid}/`, null, { value: `The checkout was slow and confusing, attempt ${i}.` });
    await call("PUT", `${intake}${s.session_id}/answers/${link.questions[1].uuid}/`, null, { value: i });
    await call("POST", `${intake}${s.session_id}/submit/`, null, {});
    responseUuids.push(s.response_uuid);
  }

  // Deliveries are in flight (the receiver holds each one for 1.5 s): crash now.
  await receiver.waitFor((rs) => rs.length >= 1, 30_000);
  server.kill9();
  await server.proc.exited;
  const beforeCrash = receiver.requests.length;
  expect(beforeCrash).toBeLessThan(RESPONSES * 2);

  receiver.setBehavior({});
  server = await startServer({ dataDir, env });
  const wh = new Webhook(hook.secret);
  const key = (type: string, uuid: string) => `${type} ${uuid}`;
  const expected = responseUuids.flatMap((u) => [key("response.started", u), key("response.submitted", u)]);
  const seen = () => {
    const ids = new Map<string, Set<string>>();
    for (const r of receiver!.requests) {
      const body = wh.verify(r.body, r.headers) as { type: string; data: { response: { uuid: string; status: string } } };
      const k = key(body.type, body.data.response.uuid);
      ids.set(k, (ids.get(k) ?? new Set()).add(r.headers["webhook-id"]!));
    }
    return ids;
  };
  await receiver.waitFor(() => expected.every((k) => seen().has(k)), 60_000);

  const ids = seen();
  for (const k of expected) expect(ids.get(k)?.size, k).toBe(1);
  // At least one event was sent before the crash and again after it, under the same id.
  const counts = new Map<string, number>();
  for (const r of receiver.requests) counts.set(r.headers["webhook-id"]!, (counts.get(r.headers["webhook-id"]!) ?? 0) + 1);
  expect([...counts.values()].some((n) => n >= 2)).toBe(true);

  const submitted = receiver.requests.map((r) => JSON.parse(r.body)).filter((b) => b.type === "response.submitted");
  const text = submitted[0].data.response.answers.find((a: { response_type: string }) => a.response_type === "text");
  expect(text.ai_insights).toMatchObject({ sentiment: expect.any(String) });
  const nps = submitted[0].data.response.answers.find((a: { response_type: string }) => a.response_type === "rating");
  expect(nps.rating_details).toMatchObject({ max_value: 10, scale_type: "nps" });

  const log = await call("GET", `${hookPath}${hook.uuid}/deliveries/?page_size=100`, ws.api_key);
  expect(log.count).toBe(RESPONSES * 2);
  expect(log.results.every((d: { state: string }) => d.state === "succeeded")).toBe(true);
}, 120_000);
