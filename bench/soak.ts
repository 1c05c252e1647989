/**
 * @module bench/soak
 * Soak under hostile load (issue 9, "Done when"; figures in docs/performance.md). Starts one real
 * `earshot serve` from source (its own data directory, an ephemeral port, bound to 127.0.0.1
 * only) and, for `--duration-s` seconds, runs bounded request loops against it side by side:
 *
 * - **hostile uploads** on hostile tenants' links, on a voice question with `max_duration: 10`:
 *   WAV bombs (1 MB of 8-bit PCM declaring 100 Hz, i.e. 10 000 s), a 600 s 8 kHz WAV (4.8 MB),
 *   a 60 s one small enough to pass the size cap (480 kB), and a valid 5 s one, each followed by
 *   a submit so transcription runs; malformed multipart on a file question;
 * - **oversized bodies**: 20 MiB of JSON to an answer, 100 MiB unauthenticated to `POST links/`,
 *   130 MiB of audio (over the global limit), 2 MiB to a 1 MB file question;
 * - **session floods**: anonymous session starts as fast as 6 workers can send them;
 * - **slow receivers**: the hostile tenants' webhooks point at a receiver that hangs past the
 *   10 s timeout, one that answers after 8 s, one that answers 500, and a port that refuses;
 * - a **healthy tenant**: one respondent session about every 1.1 s (under the per-link session
 *   limit), a typed answer and a submit, whose webhook receiver records when each event arrives.
 *
 * It reports the server's peak RSS (the process and its children, sampled every 200 ms, and the
 * kernel's high-water mark), answered/refused counts by status per kind of request, and the
 * healthy tenant's delays per event type: queued → arrival (from the event's `timestamp`, when
 * the server wrote it to the outbox: the delivery delay proper) and request → arrival (from the
 * respondent's start or submit request; for `response.submitted` this includes waiting for the
 * answer's analysis in the job queue).
 * Not run by CI. Every loop is bounded in count and time and only talks to 127.0.0.1.
 *
 *   npx bun bench/soak.ts [--duration-s 60] [--json]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createTestCertificates, startHttpsReceiver } from "../test/helpers/https-receiver.ts";
import { freePort, runCli, startServer } from "../test/helpers/process.ts";

const { values: flags } = parseArgs({ options: { "duration-s": { type: "string", default: "60" }, json: { type: "boolean", default: false } } });
const DURATION_MS = Math.max(5, Math.min(600, Number(flags["duration-s"]))) * 1000;
/** After the load stops, how long healthy deliveries still in the outbox may take to arrive. */
const GRACE_MS = 15_000;
const REQUEST_TIMEOUT_MS = 30_000;

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN);

// ---------------------------------------------------------------- bodies (built once)

/** A canonical 44-byte-header PCM WAV: `bytes` of data, declaring `sampleRate` Hz, 8 or 16 bits, mono. */
function wav(sampleRate: number, bits: 8 | 16, dataBytes: number): Uint8Array {
  const buf = new Uint8Array(44 + dataBytes);
  const v = new DataView(buf.buffer);
  const text = (at: number, s: string) => [...s].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)));
  text(0, "RIFF");
  v.setUint32(4, 36 + dataBytes, true);
  text(8, "WAVE");
  text(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, 1, true); // mono
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, (sampleRate * bits) / 8, true);
  v.setUint16(32, bits / 8, true);
  v.setUint16(34, bits, true);
  text(36, "data");
  v.setUint32(40, dataBytes, true);
  for (let i = 44; i < buf.length; i++) buf[i] = 128 + Math.round(60 * Math.sin(i / 7)); // a tone, not silence
  return buf;
}
const WAV_BOMB = wav(100, 8, 1_000_000);
const WAV_LONG = wav(8000, 8, 600 * 8000);
const WAV_60S_SMALL = wav(8000, 8, 60 * 8000);
const WAV_5S = wav(16_000, 16, 5 * 32_000);
const MALFORMED_MULTIPART = new TextEncoder().encode(
  '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG garbage with no closing boundary',
);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-soak-"));
/** A sparse file of `mib` MiB of zeros: sent by Bun straight from disk, with its Content-Length. */
function zeros(name: string, mib: number): string {
  const file = path.join(scratch, name);
  fs.closeSync(fs.openSync(file, "w"));
  fs.truncateSync(file, mib * 1024 * 1024);
  return file;
}
const BODY_100M = zeros("100m.bin", 100);
const BODY_130M = zeros("130m.bin", 130);
const BODY_20M = zeros("20m.json", 20);
const FILE_2M = new Uint8Array(2 * 1024 * 1024).fill(0x41);

// ---------------------------------------------------------------- counting

/** kind → status (or error name) → count. */
const counts = new Map<string, Map<string, number>>();
function count(kind: string, outcome: string): void {
  const m = counts.get(kind) ?? new Map<string, number>();
  m.set(outcome, (m.get(outcome) ?? 0) + 1);
  counts.set(kind, m);
}

type Reply = { status: number; json: any };
let baseUrl = "";

/** One request to the server; counted under `kind` by status, or by error name when none came. */
async function send(
  kind: string,
  method: string,
  p: string,
  init: { body?: BodyInit; json?: unknown; key?: string; headers?: Record<string, string> } = {},
): Promise<Reply | null> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["content-type"] ??= "application/json";
  }
  try {
    const res = await fetch(baseUrl + p, { method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    count(kind, String(res.status));
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  } catch (err) {
    const e = err as { name?: string; code?: string };
    count(kind, `error:${e.code ?? e.name ?? "unknown"}`);
    return null;
  }
}

/** Runs `step` with `workers` in parallel until the deadline or `max` steps in all. */
async function loop(workers: number, max: number, deadline: number, step: (i: number) => Promise<void>, pauseMs = 0): Promise<void> {
  let n = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < deadline && n < max) {
        await step(n++);
        if (pauseMs) await Bun.sleep(pauseMs);
      }
    }),
  );
}

// ---------------------------------------------------------------- RSS of the server and its children

function rssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
function hwmKiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
function descendants(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const kids = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
      for (const k of kids ? kids.split(/\s+/).map(Number) : []) out.push(k, ...descendants(k));
    }
  } catch {
    // the process is gone
  }
  return out;
}

// ---------------------------------------------------------------- set-up

const certs = await createTestCertificates();
const healthyReceiver = await startHttpsReceiver({ certs });
const hostileReceiver = await startHttpsReceiver({ certs });
hostileReceiver.setBehavior({ delayMs: 60_000 }, "/hang");
hostileReceiver.setBehavior({ delayMs: 8_000 }, "/slow");
hostileReceiver.setBehavior({ status: 500, body: "down" }, "/error");
const deadPort = await freePort(); // nothing listens there: connection refused

const dataDir = path.join(scratch, "data");
async function tenant(name: string) {
  const r = await runCli(["workspace", "create", "--name", name, "--plan", "enterprise", "--json"], { dataDir });
  if (r.code !== 0) throw new Error(`workspace create failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { workspace_uuid: string; workspace_slug: string; api_key: string };
}
const hostileA = await tenant("Hostile A");
const hostileB = await tenant("Hostile B");
const healthy = await tenant("Healthy");

const server = await startServer({
  dataDir,
  env: {
    EARSHOT_HOST: "127.0.0.1",
    EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost",
    EARSHOT_WEBHOOK_CA_FILE: certs.caFile,
    EARSHOT_LOG_LEVEL: "error",
  },
});
baseUrl = server.baseUrl;
const pid = server.proc.pid;

async function must(method: string, p: string, key: string, json: unknown): Promise<any> {
  const r = await send("setup", method, p, { key, json });
  if (!r || r.status >= 300) throw new Error(`${method} ${p} → ${r?.status} ${JSON.stringify(r?.json)}`);
  return r.json;
}
const HOSTILE_QUESTIONS = [
  { prompt: "Tell us", type: "voice", configuration: { max_duration: 10 } },
  { prompt: "Attach a screenshot", type: "file_upload", configuration: { allowed_types: ["image/png"], max_size_mb: 1 } },
  { prompt: "Anything else?", type: "text" },
];
type Link = { slug: string; questions: { uuid: string }[]; ws: string };
async function hostileLinks(t: typeof hostileA, hooks: string[], n: number): Promise<Link[]> {
  for (const h of hooks)
    await must("POST", `/api/v1/workspaces/${t.workspace_uuid}/webhooks/`, t.api_key, { url: h, events: ["response.started", "response.submitted"] });
  const links: Link[] = [];
  for (let i = 0; i < n; i++)
    links.push({ ...(await must("POST", "/api/v1/links/", t.api_key, { name: `Hostile ${i}`, questions: HOSTILE_QUESTIONS })), ws: t.workspace_slug });
  return links;
}
const hostile = [
  ...(await hostileLinks(hostileA, [hostileReceiver.url.replace("/hook", "/hang"), hostileReceiver.url.replace("/hook", "/slow")], 3)),
  ...(await hostileLinks(hostileB, [`https://localhost:${deadPort}/dead`, hostileReceiver.url.replace("/hook", "/error")], 2)),
];
await must("POST", `/api/v1/workspaces/${healthy.workspace_uuid}/webhooks/`, healthy.api_key, {
  url: healthyReceiver.url,
  events: ["response.started", "response.submitted"],
});
const healthyLink: Link = {
  ...(await must("POST", "/api/v1/links/", healthy.api_key, { name: "Healthy", questions: [{ prompt: "Anything else?", type: "text" }] })),
  ws: healthy.workspace_slug,
};

const intake = (l: Link) => `/api/v1/intake/${l.ws}/${l.slug}/sessions/`;
/** Sessions the flood opened, for the recording loop, which submits them (bounded). */
const sessions: { link: Link; id: string }[] = [];
/** Sessions kept open (never submitted) for the file and oversized-body loops. */
const spare: { link: Link; id: string }[] = [];

// ---------------------------------------------------------------- load

let peakRssKiB = 0;
const loadBefore = os.loadavg();
const started = Date.now();
const deadline = started + DURATION_MS;
const sampler = setInterval(() => {
  const total = [pid, ...descendants(pid)].reduce((s, p) => s + rssKiB(p), 0);
  peakRssKiB = Math.max(peakRssKiB, total);
}, 200);
const idleRssKiB = rssKiB(pid);

const startedAt = new Map<string, number>();
const submittedAt = new Map<string, number>();

await Promise.all([
  // Session floods on every hostile link.
  loop(6, 1000 * (DURATION_MS / 1000), deadline, async (i) => {
    const link = hostile[i % hostile.length]!;
    const r = await send("session flood", "POST", intake(link), { json: {} });
    if (r?.status === 201) {
      if (spare.length < 40) spare.push({ link, id: r.json.session_id });
      else if (sessions.length < 2000) sessions.push({ link, id: r.json.session_id });
    }
  }),
  // WAV bombs, over-long and valid recordings, then a submit (so transcription runs).
  loop(2, 400, deadline, async (i) => {
    const s = sessions.pop();
    if (!s) return void (await Bun.sleep(50));
    const [kind, body] = (
      [
        ["wav bomb 100 Hz (1 MB)", WAV_BOMB],
        ["wav 600 s (4.8 MB)", WAV_LONG],
        ["wav 60 s (480 kB)", WAV_60S_SMALL],
        ["wav 5 s, valid", WAV_5S],
      ] as const
    )[i % 4]!;
    await send(kind, "POST", `${intake(s.link)}${s.id}/answers/${s.link.questions[0]!.uuid}/audio/`, {
      body: body as unknown as BodyInit,
      headers: { "content-type": "audio/wav" },
    });
    await send("hostile submit", "POST", `${intake(s.link)}${s.id}/submit/`, { json: {} });
  }),
  // Malformed multipart on the file question.
  loop(
    1,
    3000,
    deadline,
    async (i) => {
      const s = spare[i % Math.max(1, spare.length)];
      if (!s) return void (await Bun.sleep(50));
      await send("malformed multipart", "POST", `${intake(s.link)}${s.id}/answers/${s.link.questions[1]!.uuid}/file/`, {
        body: MALFORMED_MULTIPART,
        headers: { "content-type": "multipart/form-data; boundary=XyZ" },
      });
    },
    5,
  ),
  // Oversized bodies, one at a time.
  loop(
    1,
    80,
    deadline,
    async (i) => {
      const s = spare[(i * 7) % Math.max(1, spare.length)];
      if (!s) return void (await Bun.sleep(50));
      const { link, id: sid } = s;
      switch (i % 4) {
        case 0:
          await send("20 MiB JSON answer", "PUT", `${intake(link)}${sid}/answers/${link.questions[2]!.uuid}/`, {
            body: Bun.file(BODY_20M),
            headers: { "content-type": "application/json" },
          });
          break;
        case 1:
          await send("100 MiB unauthenticated POST links/", "POST", "/api/v1/links/", {
            body: Bun.file(BODY_100M),
            headers: { "content-type": "application/json" },
          });
          break;
        case 2:
          await send("130 MiB audio", "POST", `${intake(link)}${sid}/answers/${link.questions[0]!.uuid}/audio/`, {
            body: Bun.file(BODY_130M),
            headers: { "content-type": "audio/wav" },
          });
          break;
        default: {
          const form = new FormData();
          form.append("file", new File([FILE_2M], "big.png", { type: "image/png" }));
          await send("2 MiB file on a 1 MB question", "POST", `${intake(link)}${sid}/answers/${link.questions[1]!.uuid}/file/`, { body: form });
        }
      }
    },
    250,
  ),
  // The healthy tenant: one respondent about every 1.1 s (under 60 session starts a minute).
  loop(
    1,
    1000,
    deadline,
    async () => {
      const t0 = Date.now();
      const s = await send("healthy", "POST", intake(healthyLink), { json: {} });
      if (s?.status !== 201) return;
      startedAt.set(s.json.response_uuid, t0);
      await send("healthy", "PUT", `${intake(healthyLink)}${s.json.session_id}/answers/${healthyLink.questions[0]!.uuid}/`, {
        json: { value: "The new checkout is quick, thank you." },
      });
      submittedAt.set(s.json.response_uuid, Date.now());
      await send("healthy", "POST", `${intake(healthyLink)}${s.json.session_id}/submit/`, { json: {} });
    },
    1100,
  ),
]);
const loadS = (Date.now() - started) / 1000;
const loadDuring = os.loadavg();

// Let the healthy tenant's last events arrive.
const arrived = (type: string) => healthyReceiver.requests.map((r) => JSON.parse(r.body)).filter((b) => b.type === type);
const graceEnd = Date.now() + GRACE_MS;
while (Date.now() < graceEnd && (arrived("response.started").length < startedAt.size || arrived("response.submitted").length < submittedAt.size))
  await Bun.sleep(100);
clearInterval(sampler);
const hwm = hwmKiB(pid);

/**
 * Delays of the healthy tenant's `type` events: from `sent` (the client's request: start or
 * submit) to the first arrival, and from the event's own `timestamp` (when the server queued it in
 * the outbox) to the first arrival — the delivery delay proper.
 */
function delays(type: string, sent: Map<string, number>) {
  const first = new Map<string, { at: number; queued: number }>();
  for (const r of healthyReceiver.requests) {
    const b = JSON.parse(r.body);
    if (b.type === type && !first.has(b.data.response.uuid)) first.set(b.data.response.uuid, { at: r.receivedAtMs, queued: Date.parse(b.timestamp) });
  }
  const arrived = [...sent].filter(([u]) => first.has(u));
  const stats = (ms: number[]) => ({ p50_ms: pct(ms, 50), p99_ms: pct(ms, 99), max_ms: ms.at(-1) ?? NaN });
  return {
    events: sent.size,
    delivered: arrived.length,
    queued_to_arrival: stats(arrived.map(([u]) => first.get(u)!.at - first.get(u)!.queued).sort((a, b) => a - b)),
    request_to_arrival: stats(arrived.map(([u, t]) => first.get(u)!.at - t).sort((a, b) => a - b)),
  };
}

const report = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "?"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Bun ${Bun.version}`,
  load_average_before: loadBefore.map((x) => x.toFixed(2)).join(" "),
  load_average_after: loadDuring.map((x) => x.toFixed(2)).join(" "),
  duration_s: Math.round(loadS),
  server_rss_idle_mib: Math.round(idleRssKiB / 1024),
  server_rss_peak_mib: Math.round(peakRssKiB / 1024),
  server_rss_hwm_mib: Math.round(hwm / 1024),
  healthy_started: delays("response.started", startedAt),
  healthy_submitted: delays("response.submitted", submittedAt),
  hostile_receiver_requests: Object.fromEntries(["/hang", "/slow", "/error"].map((p) => [p, hostileReceiver.requests.filter((r) => r.path === p).length])),
  requests: Object.fromEntries([...counts].map(([k, m]) => [k, Object.fromEntries([...m].sort())])),
};

await server.stop();
await healthyReceiver.close();
await hostileReceiver.close();
fs.rmSync(certs.dir, { recursive: true, force: true });
fs.rmSync(scratch, { recursive: true, force: true });

if (flags.json) console.log(JSON.stringify(report, null, 2));
else {
  const st = (x: { p50_ms: number; p99_ms: number; max_ms: number }) => `p50 ${x.p50_ms} ms, p99 ${x.p99_ms} ms, max ${x.max_ms} ms`;
  const d = (x: ReturnType<typeof delays>, what: string) =>
    `${x.delivered}/${x.events} delivered; queued → arrival ${st(x.queued_to_arrival)}; ${what} → arrival ${st(x.request_to_arrival)}`;
  console.log(`Soak bench — ${report.date}, ${report.machine}`);
  console.log(`load average before ${report.load_average_before}, after ${report.load_average_after}; ${report.duration_s} s of load`);
  console.log(
    `server RSS: idle ${report.server_rss_idle_mib} MiB, peak ${report.server_rss_peak_mib} MiB (sampled, with children), high-water mark ${report.server_rss_hwm_mib} MiB`,
  );
  console.log(`healthy response.started: ${d(report.healthy_started, "start request")}`);
  console.log(`healthy response.submitted: ${d(report.healthy_submitted, "submit request")}`);
  console.log(`hostile receivers got: ${JSON.stringify(report.hostile_receiver_requests)}`);
  console.log("requests by kind and status:");
  for (const [kind, m] of Object.entries(report.requests))
    console.log(
      `  ${kind}: ${Object.entries(m)
        .map(([s, n]) => `${s} × ${n}`)
        .join(", ")}`,
    );
}
