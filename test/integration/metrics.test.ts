/**
 * `GET /metrics` of a real `earshot serve` (DESIGN §14; issue 26): who may read it (the
 * `EARSHOT_METRICS_TOKEN` bearer, an API key with `metrics:read`; not a key without it, not
 * anonymous, never on a workspace's intake origin); the scrape passes Debian's `promtool check
 * metrics`; and its values move when work happens — a voice answer submitted through the intake
 * (sessions, HTTP requests by route template), transcribed and analysed by the job runner (job
 * outcomes, inference histograms, real-time factor), and delivered to a real HTTPS receiver
 * (delivery attempts and latency). Both engines: the engine's own gauges are checked too.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from "../helpers/https-receiver.ts";
import { makeSpeechWav } from "../helpers/audio.ts";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";
import { dropTestDatabase, onPostgres } from "../helpers/db.ts";
import http from "node:http";

const METRICS_TOKEN = "metrics-token-for-the-test-0123456789";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-metrics-"));
let certs: TestCertificates | null = null;
let receiver: HttpsReceiver | null = null;
let server: RunningServer | null = null;
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
  await dropTestDatabase(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The value of one sample (`name{labels}`; labels in any order), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

/** A GET with headers of our choosing (`Host` included) over node:http. */
function getWithHost(port: number, p: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: p, headers }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

/** `promtool check metrics` over the text: its exit code and what it said. */
function promtool(text: string): { code: number; said: string } {
  expect(fs.existsSync("/usr/bin/promtool")).toBe(true); // Debian's prometheus (scripts/test.ts installs it)
  const r = Bun.spawnSync(["promtool", "check", "metrics"], { stdin: new TextEncoder().encode(text), stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, said: r.stdout.toString() + r.stderr.toString() };
}

test("metrics: token or metrics:read only, off intake origins, promtool-clean, and moving with real work", async () => {
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver({ certs });
  const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Metrics", "--plan", "pro", "--json"], { dataDir })).stdout);
  const intakeHost = "feedback.metrics.test";
  const created = await runCli(["workspace", "create", "--name", "Own origin", "--host", `http://${intakeHost}`, "--json"], { dataDir });
  expect(created.code).toBe(0);
  const reader = await runCli(["token", "create", "--workspace", ws.workspace_uuid, "--name", "Prometheus", "--scopes", "metrics:read", "--json"], { dataDir });
  expect(reader.code).toBe(0);
  const readerKey = JSON.parse(reader.stdout).key as string;
  server = await startServer({
    dataDir,
    env: { EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1", EARSHOT_WEBHOOK_CA_FILE: certs.caFile, EARSHOT_METRICS_TOKEN: METRICS_TOKEN },
  });
  const base = server.baseUrl;
  const scrapeWith = (authorization?: string) => fetch(`${base}/metrics`, { headers: authorization ? { authorization } : {} });
  const scrape = async () => {
    const res = await scrapeWith(`Bearer ${METRICS_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    return res.text();
  };

  // Who may read it.
  expect((await scrapeWith()).status).toBe(401);
  expect((await scrapeWith("Bearer not-the-metrics-token-at-all")).status).toBe(401);
  const withoutScope = await scrapeWith(`Bearer ${ws.api_key}`);
  expect([withoutScope.status, ((await withoutScope.json()) as { code: string }).code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
  expect((await scrapeWith(`Bearer ${readerKey}`)).status).toBe(200);
  // A workspace's own intake origin: as unknown as any other path there, even with the token.
  const onIntakeHost = await getWithHost(server.port, "/metrics", { host: intakeHost, authorization: `Bearer ${METRICS_TOKEN}` });
  expect(onIntakeHost.status).toBe(404);
  expect(onIntakeHost.body).not.toContain("earshot_");

  const before = await scrape();
  const checked = promtool(before);
  expect(checked).toEqual({ code: 0, said: "" });
  // The process and engine gauges are there.
  expect(sample(before, "process_resident_memory_bytes")).toBeGreaterThan(1e6);
  expect(before).toContain("nodejs_eventloop_lag_seconds");
  if (onPostgres) {
    expect(before).toContain('earshot_postgres_pool_connections{state="idle"}');
    expect(before).toContain("earshot_postgres_lock_waits 0");
  } else {
    expect(before).toContain("earshot_sqlite_wal_bytes");
    expect(before).toContain("earshot_sqlite_checkpoint_lag_frames");
  }

  // Work: a voice answer through the intake, transcribed, analysed and delivered.
  const api = async (method: string, p: string, body?: unknown, raw?: Uint8Array) => {
    const res = await fetch(base + p, {
      method,
      headers: { authorization: `Bearer ${ws.api_key}`, "content-type": raw ? "audio/wav" : "application/json" },
      body: raw ? (raw as unknown as BodyInit) : body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  const link = (
    await api("POST", "/api/v1/links/", {
      name: "Voice feedback",
      questions: [{ prompt: "What should we fix first?", type: "voice" }],
      on_finished: { webhook_url: receiver.url, webhook_secret: "plain-shared-secret" },
    })
  ).json;
  const intake = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
  const session = (await api("POST", intake, {})).json;
  const wav = new Uint8Array(fs.readFileSync(await makeSpeechWav("the checkout page keeps crashing", path.join(dataDir, "s.wav"))));
  expect((await api("POST", `${intake}${session.session_id}/answers/${link.questions[0].uuid}/audio/`, undefined, wav)).status).toBe(200);
  expect((await api("POST", `${intake}${session.session_id}/submit/`, {})).status).toBe(200);
  expect((await api("GET", "/api/v1/links/00000000-0000-4000-8000-000000000000/")).status).toBe(404);
  await receiver.waitFor((rs) => rs.length >= 1, 60_000);

  // The delivery is counted once its attempt is recorded, just after the receiver answered.
  let after = await scrape();
  for (let i = 0; i < 50 && sample(after, "earshot_webhook_delivery_attempts_total", { outcome: "succeeded" }) < 1; i++) {
    await Bun.sleep(100);
    after = await scrape();
  }
  expect(promtool(after)).toEqual({ code: 0, said: "" });
  const moved = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
  expect(moved("earshot_intake_sessions_started_total")).toBe(1);
  expect(moved("earshot_intake_sessions_submitted_total")).toBe(1);
  const sessionRoute = "/api/v1/intake/:workspace_slug/:link_slug/sessions/";
  expect(moved("earshot_http_request_duration_seconds_count", { route: sessionRoute, method: "POST", status_class: "2xx" })).toBe(1);
  expect(moved("earshot_http_request_duration_seconds_count", { route: "/api/v1/links/:link_uuid/", method: "GET", status_class: "4xx" })).toBe(1);
  expect(moved("earshot_http_request_duration_seconds_count", { route: "/metrics", method: "GET", status_class: "2xx" })).toBeGreaterThanOrEqual(1);
  expect(moved("earshot_jobs_finished_total", { kind: "transcribe", outcome: "done" })).toBe(1);
  expect(moved("earshot_jobs_finished_total", { kind: "analyse", outcome: "done" })).toBe(1);
  expect(moved("earshot_transcription_duration_seconds_count")).toBe(1);
  expect(moved("earshot_transcription_real_time_factor_count")).toBe(1);
  expect(sample(after, "earshot_transcription_real_time_factor_sum")).toBeGreaterThan(0);
  expect(moved("earshot_analysis_duration_seconds_count")).toBe(1);
  expect(moved("earshot_webhook_delivery_attempts_total", { outcome: "succeeded" })).toBe(1);
  expect(moved("earshot_webhook_delivery_duration_seconds_count")).toBe(1);
  // Nothing left behind: the scrape-time gauges read the database as it is now.
  expect(sample(after, "earshot_jobs", { kind: "transcribe", state: "queued" })).toBe(0);
  expect(sample(after, "earshot_webhook_deliveries_backlog")).toBe(0);
}, 180_000);

test("metrics: a queued job shows in the backlog gauges at the next scrape, and refusals are counted", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-metrics-paused-"));
  const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Paused", "--plan", "free", "--json"], { dataDir: dir })).stdout);
  // Jobs are queued but not run, and one session start a minute per address: both observable.
  const paused = await startServer({
    dataDir: dir,
    env: { EARSHOT_JOBS_PAUSED: "1", EARSHOT_METRICS_TOKEN: METRICS_TOKEN, EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "1" },
  });
  try {
    const scrape = async () => (await fetch(`${paused.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const call = async (method: string, p: string, body?: unknown) =>
      fetch(paused.baseUrl + p, {
        method,
        headers: { authorization: `Bearer ${ws.api_key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const link = (await (await call("POST", "/api/v1/links/", { name: "Text", questions: [{ prompt: "Why?", type: "text" }] })).json()) as any;
    const before = await scrape();
    const intake = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
    const session = (await (await call("POST", intake, {})).json()) as any;
    expect((await call("PUT", `${intake}${session.session_id}/answers/${link.questions[0].uuid}/`, { value: "The export is slow" })).status).toBe(200);
    expect((await call("POST", `${intake}${session.session_id}/submit/`, {})).status).toBe(200);
    expect((await call("POST", intake, {})).status).toBe(429);
    // The free plan's 30 requests a minute for the key: the next ones are refused.
    let refused = 0;
    for (let i = 0; i < 40 && refused === 0; i++) if ((await call("GET", "/api/v1/links/")).status === 429) refused++;
    expect(refused).toBe(1);
    const after = await scrape();
    expect(promtool(after)).toEqual({ code: 0, said: "" });
    expect(sample(before, "earshot_jobs", { kind: "analyse", state: "queued" })).toBe(0);
    expect(sample(after, "earshot_jobs", { kind: "analyse", state: "queued" })).toBe(1);
    expect(sample(after, "earshot_jobs_oldest_age_seconds", { kind: "analyse" })).toBeGreaterThanOrEqual(0);
    expect(after).toContain('earshot_jobs_oldest_age_seconds{kind="analyse"}');
    const moved = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(moved("earshot_intake_limit_refusals_total", { limit: "session_start" })).toBe(1);
    expect(moved("earshot_rate_limit_refusals_total", { limit: "api_key" })).toBe(1);
  } finally {
    await paused.stop();
    await dropTestDatabase(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
