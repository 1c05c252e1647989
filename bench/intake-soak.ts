/**
 * @module bench/intake-soak
 * Sustained intake (issue 22, "Done when"; figures in docs/performance.md): one real `earshot
 * serve` (SQLite, its own data directory, loopback) under a closed loop of `--respondents`
 * respondents for `--duration-s` seconds. A response is `POST sessions/`, three text answers and
 * `POST submit/`; each submit queues the answers' analysis (run by the server's inference worker)
 * and a `response.submitted` webhook to a local HTTPS receiver. So intake, analysis and deliveries
 * all write, as on a busy appliance.
 *
 * Every second it samples the size of `earshot.db-wal` (stat only), the server's RSS (the process
 * and its children) and the submissions acknowledged; every `--report-s` seconds it prints a row
 * (throughput in that interval, WAL now and its peak in the interval, RSS). After the load it
 * watches the WAL for `--after-s` seconds (does it shrink?). Then: totals, peak WAL, peak RSS, the
 * kernel's RSS high-water mark, and whether every acknowledged submission is stored completed.
 * Each row and each after-load sample also give the analysis jobs queued and the answers analysed
 * per second since the last one (a read-only connection to the database, beside the server): does
 * analysis keep its pace as its queue grows (issue 24)?
 * Prints figures; asserts nothing about time. Not run by CI.
 *
 *   npx bun bench/intake-soak.ts [--duration-s 300] [--respondents 6] [--report-s 15] [--after-s 20]
 *                                [--synchronous full|normal] [--jobs-paused] [--bin dist/earshot] [--json]
 *
 * `--jobs-paused`: analysis jobs are queued but not run (EARSHOT_JOBS_PAUSED=1), so neither
 * analysis nor the webhooks (sent once a response's analysis is done) share the machine.
 *
 * `--voice CLIP.wav --models-dir DIR --asr-model ID [--asr-engine whispercpp|transformers]
 * [--think-ms N]`: a response is a recording (the clip, uploaded as a voice answer), one typed
 * answer and the submit; the server transcribes every recording with that model and engine (a
 * speed change of the transcription is not done until this shows nothing else grew: the
 * worker's RSS, the open file descriptors, the WAL). Each row then adds the transcriptions queued
 * and done per second and the open descriptors of the server and its children. `--think-ms`
 * paces each respondent (a pause after each response) so the transcription can keep up.
 */
import { sql } from "kysely";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Database as SqliteReader } from "bun:sqlite";
import { openDatabase } from "../src/db/client.ts";
import { createTestCertificates, startHttpsReceiver } from "../test/helpers/https-receiver.ts";
import { runCli, startServer } from "../test/helpers/process.ts";

const { values: flags } = parseArgs({
  options: {
    "duration-s": { type: "string", default: "300" },
    respondents: { type: "string", default: "6" },
    "report-s": { type: "string", default: "15" },
    "after-s": { type: "string", default: "20" },
    synchronous: { type: "string" },
    "jobs-paused": { type: "boolean", default: false },
    bin: { type: "string" },
    json: { type: "boolean", default: false },
    voice: { type: "string" },
    "models-dir": { type: "string" },
    "asr-model": { type: "string" },
    "asr-engine": { type: "string", default: "whispercpp" },
    "think-ms": { type: "string", default: "0" },
  },
});
const thinkMs = Number(flags["think-ms"]);
const clip = flags.voice ? new Uint8Array(fs.readFileSync(flags.voice)) : null;
if (clip && !(flags["models-dir"] && flags["asr-model"])) throw new Error("--voice needs --models-dir and --asr-model");
const durationS = Number(flags["duration-s"]);
const respondents = Number(flags.respondents);
const reportS = Number(flags["report-s"]);
const afterS = Number(flags["after-s"]);
if (!(durationS > 0 && durationS <= 3600 && respondents >= 1 && respondents <= 256 && reportS >= 1 && afterS >= 0 && afterS <= 600)) {
  throw new Error(
    "usage: bench/intake-soak.ts [--duration-s 1..3600] [--respondents 1..256] [--report-s S>=1] [--after-s 0..600] [--synchronous full|normal] [--bin PATH] [--json]",
  );
}
const bin = flags.bin ? (flags.bin.endsWith(".ts") ? [process.execPath, path.resolve(flags.bin)] : [path.resolve(flags.bin)]) : undefined;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-intake-soak-"));
const dataDir = path.join(scratch, "data");
const walFile = path.join(dataDir, "earshot.db-wal");
let serverPid = 0;
const watchdogMs = (durationS + afterS + 180) * 1000;
const watchdog = setTimeout(() => {
  process.stderr.write(`bench/intake-soak: still running after ${watchdogMs / 1000} s; stopping\n`);
  process.exit(3);
}, watchdogMs);
process.on("exit", () => {
  if (serverPid) {
    try {
      process.kill(serverPid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  fs.rmSync(scratch, { recursive: true, force: true });
});
process.once("SIGINT", () => process.exit(130));

// ---------------------------------------------------------------- set-up

const certs = await createTestCertificates();
const receiver = await startHttpsReceiver({ certs });
const created = await runCli(["workspace", "create", "--name", "Soak", "--plan", "enterprise", "--json"], { dataDir, bin });
if (created.code !== 0) throw new Error(`workspace create failed: ${created.stderr}`);
const ws = JSON.parse(created.stdout) as { workspace_uuid: string; workspace_slug: string; api_key: string };
const env: Record<string, string> = {
  EARSHOT_HOST: "127.0.0.1",
  EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0", // every respondent is 127.0.0.1
  EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost",
  EARSHOT_WEBHOOK_CA_FILE: certs.caFile,
  EARSHOT_LOG_LEVEL: "error",
};
if (flags.synchronous) env.EARSHOT_SQLITE_SYNCHRONOUS = flags.synchronous;
if (flags["jobs-paused"]) env.EARSHOT_JOBS_PAUSED = "1";
if (clip) {
  env.EARSHOT_MODELS_DIR = path.resolve(flags["models-dir"]!);
  env.EARSHOT_ASR_MODEL = flags["asr-model"]!;
  env.EARSHOT_ASR_ENGINE = flags["asr-engine"]!;
}
const server = await startServer({ dataDir, env, bin });
serverPid = server.proc.pid;

async function api(method: string, p: string, body: unknown): Promise<any> {
  const res = await fetch(server.baseUrl + p, {
    method,
    headers: { authorization: `Bearer ${ws.api_key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.json();
}
await api("POST", `/api/v1/workspaces/${ws.workspace_uuid}/webhooks/`, { url: receiver.url, events: ["response.submitted"] });
const link = await api("POST", "/api/v1/links/", {
  name: "Soak",
  questions: clip
    ? [
        { prompt: "Tell us about your visit", type: "voice", configuration: { max_duration: 120 } },
        { prompt: "What should we improve?", type: "text" },
      ]
    : [
        { prompt: "What brought you here today?", type: "text" },
        { prompt: "What should we improve?", type: "text" },
        { prompt: "Anything else?", type: "text", required: false },
      ],
});
const base = `${server.baseUrl}/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
const ANSWERS = [
  "I wanted to compare plans before renewing.",
  "The checkout page was slow on my phone and lost my address once.",
  "Support answered quickly, thank you.",
];

// ---------------------------------------------------------------- sampling

const walBytes = () => fs.statSync(walFile, { throwIfNoEntry: false })?.size ?? 0;
function kib(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
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
const rssMiB = () => [serverPid, ...descendants(serverPid)].reduce((s, p) => s + kib(p, "VmRSS"), 0) / 1024;
const MiB = 1024 * 1024;

const acknowledged: string[] = [];
let failures = 0;
let firstFailure = "";
type Row = {
  t_s: number;
  submissions_per_s: number;
  wal_mib: number;
  wal_peak_mib: number;
  rss_mib: number;
  analyses_queued: number | null;
  analysed_per_s: number | null;
  transcriptions_queued: number | null;
  transcribed_per_s: number | null;
  open_fds: number;
};

/**
 * A kind of job's pace: queued now, and finished per second since the last call (null: the
 * database could not be read).
 */
function jobPace(kind: "analyse" | "transcribe"): () => { queued: number; perS: number | null } | null {
  let last: { done: number; atMs: number } | null = null;
  return () => {
    try {
      const reader = new SqliteReader(path.join(dataDir, "earshot.db"), { readonly: true });
      try {
        const rows = reader.query("SELECT state, count(*) AS n FROM jobs WHERE kind = ? GROUP BY state").all(kind) as { state: string; n: number }[];
        const n = (state: string) => rows.find((r) => r.state === state)?.n ?? 0;
        const now = { done: n("done") + n("failed"), atMs: Date.now() };
        const perS = last ? ((now.done - last.done) * 1000) / (now.atMs - last.atMs) : null;
        last = now;
        return { queued: n("queued"), perS };
      } finally {
        reader.close();
      }
    } catch {
      return null;
    }
  };
}
const analysisPace = jobPace("analyse");
const transcriptionPace = jobPace("transcribe");
/** Open file descriptors of the server and its children (0 when /proc cannot be read). */
const openFds = () =>
  [serverPid, ...descendants(serverPid)].reduce((sum, pid) => {
    try {
      return sum + fs.readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      return sum;
    }
  }, 0);
let fdPeak = 0;
const rows: Row[] = [];
let walPeak = 0;
let walPeakInterval = 0;
let rssPeak = 0;
let lastAcks = 0;
const t0 = Date.now();
const sampler = setInterval(() => {
  const w = walBytes();
  walPeak = Math.max(walPeak, w);
  walPeakInterval = Math.max(walPeakInterval, w);
  rssPeak = Math.max(rssPeak, rssMiB());
  fdPeak = Math.max(fdPeak, openFds());
  const t = Math.round((Date.now() - t0) / 1000);
  if (t > 0 && t % reportS === 0 && t !== rows.at(-1)?.t_s && t <= durationS) {
    const pace = analysisPace();
    const heard = clip ? transcriptionPace() : null;
    const row = {
      t_s: t,
      submissions_per_s: (acknowledged.length - lastAcks) / reportS,
      wal_mib: w / MiB,
      wal_peak_mib: walPeakInterval / MiB,
      rss_mib: rssMiB(),
      analyses_queued: pace?.queued ?? null,
      analysed_per_s: pace?.perS ?? null,
      transcriptions_queued: heard?.queued ?? null,
      transcribed_per_s: heard?.perS ?? null,
      open_fds: openFds(),
    };
    rows.push(row);
    lastAcks = acknowledged.length;
    walPeakInterval = 0;
    if (!flags.json)
      process.stderr.write(
        `${row.t_s} s: ${row.submissions_per_s.toFixed(1)} submissions/s, WAL ${row.wal_mib.toFixed(1)} MiB (peak ${row.wal_peak_mib.toFixed(1)}), RSS ${row.rss_mib.toFixed(0)} MiB, ${row.open_fds} fds${clip ? `, ${row.transcriptions_queued ?? "–"} transcriptions queued` : ""}\n`,
      );
  }
}, 1000);

// ---------------------------------------------------------------- load

async function call(method: string, url: string, body: unknown, want: number): Promise<any> {
  const res = await fetch(url, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (res.status !== want) throw new Error(`${method} ${url.slice(server.baseUrl.length)}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}
/** Uploads a recording as a voice answer (200 expected). */
async function upload(url: string, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "audio/wav" }, body: bytes, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${url.slice(server.baseUrl.length)}: ${res.status} ${text.slice(0, 200)}`);
}
let seq = 0;
const deadline = t0 + durationS * 1000;
await Promise.all(
  Array.from({ length: respondents }, async () => {
    // Bounded: at most 10,000 responses a second per respondent over the duration.
    for (let i = 0; i < durationS * 10_000 && Date.now() < deadline; i++) {
      const n = ++seq;
      try {
        const s = await call("POST", base, {}, 201);
        for (const [k, q] of link.questions.entries()) {
          if (q.response_type === "voice") await upload(`${base}${s.session_id}/answers/${q.uuid}/audio/`, clip!);
          else await call("PUT", `${base}${s.session_id}/answers/${q.uuid}/`, { value: `${ANSWERS[k]} (#${n})` }, 200);
        }
        await call("POST", `${base}${s.session_id}/submit/`, {}, 200);
        acknowledged.push(s.response_uuid);
        if (thinkMs > 0) await Bun.sleep(thinkMs);
      } catch (err) {
        failures++;
        firstFailure ||= String(err);
        await Bun.sleep(100);
      }
    }
  }),
);
const loadS = (Date.now() - t0) / 1000;
const loadAfter = os.loadavg();
const after: {
  t_s: number;
  wal_mib: number;
  analyses_queued: number | null;
  analysed_per_s: number | null;
  transcriptions_queued: number | null;
  rss_mib: number;
  open_fds: number;
}[] = [];
for (const t of [1, 2, 5, 10, 20, 30, 60, 120, 300, 600].filter((x) => x <= afterS)) {
  await Bun.sleep(Math.max(0, t0 + loadS * 1000 + t * 1000 - Date.now()));
  const pace = analysisPace();
  const heard = clip ? transcriptionPace() : null;
  after.push({
    t_s: t,
    wal_mib: walBytes() / MiB,
    analyses_queued: pace?.queued ?? null,
    analysed_per_s: pace?.perS ?? null,
    transcriptions_queued: heard?.queued ?? null,
    rss_mib: rssMiB(),
    open_fds: openFds(),
  });
}
clearInterval(sampler);
const hwmMiB = kib(serverPid, "VmHWM") / 1024;
await server.stop();
serverPid = 0;
await receiver.close();
fs.rmSync(certs.dir, { recursive: true, force: true });

// Exactly once: every acknowledged submission is stored completed.
const db = openDatabase(path.join(dataDir, "earshot.db"));
const { rows: stored } = await sql<{ uuid: string }>`select uuid from responses where status = 'completed'`.execute(db);
await db.destroy();
const storedSet = new Set(stored.map((r) => r.uuid));
const lost = acknowledged.filter((u) => !storedSet.has(u)).length;

const report = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "?"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Bun ${Bun.version}`,
  server: flags.bin ?? "bun src/cli.ts",
  synchronous: flags.synchronous ?? "(default)",
  jobs: flags["jobs-paused"] ? "paused" : "running",
  respondents,
  load_average_after: loadAfter.map((x) => x.toFixed(2)).join(" "),
  duration_s: Math.round(loadS),
  submissions: acknowledged.length,
  submissions_per_s: acknowledged.length / loadS,
  failures,
  first_failure: firstFailure || null,
  lost,
  webhooks_received: receiver.requests.length,
  wal_peak_mib: walPeak / MiB,
  rss_peak_mib: rssPeak,
  rss_hwm_mib: hwmMiB,
  open_fds_peak: fdPeak,
  voice: clip ? { clip: flags.voice, model: flags["asr-model"], engine: flags["asr-engine"], think_ms: thinkMs } : null,
  intervals: rows,
  wal_after_load: after,
};
clearTimeout(watchdog);
if (flags.json) console.log(JSON.stringify(report, null, 2));
else {
  const f = (x: number, d = 1) => x.toFixed(d);
  console.log(`\nIntake soak — ${report.date}, ${report.machine}, server: ${report.server}, synchronous: ${report.synchronous}, analysis jobs ${report.jobs}`);
  console.log(`${respondents} respondents (closed loop), ${report.duration_s} s; load average after: ${report.load_average_after}`);
  console.log(
    `${report.submissions} submissions (${f(report.submissions_per_s)}/s), ${failures} failed${firstFailure ? ` (first: ${firstFailure})` : ""}, ${lost} acknowledged but not stored; ${report.webhooks_received} webhooks received`,
  );
  console.log(`WAL peak ${f(report.wal_peak_mib)} MiB; server RSS peak ${f(rssPeak, 0)} MiB (sampled, with children), high-water mark ${f(hwmMiB, 0)} MiB\n`);
  const g = (x: number | null, digits = 0) => (x === null ? "–" : f(x, digits));
  if (clip) console.log(`voice: ${flags.voice} with ${flags["asr-model"]} (${flags["asr-engine"]}), think ${thinkMs} ms; open descriptors peak ${fdPeak}\n`);
  console.log(
    "| t (s) | submissions/s | WAL (MiB) | WAL peak in interval (MiB) | RSS (MiB) | analyses queued | analysed/s | transcriptions queued | transcribed/s | open fds |",
  );
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows)
    console.log(
      `| ${r.t_s} | ${f(r.submissions_per_s)} | ${f(r.wal_mib)} | ${f(r.wal_peak_mib)} | ${f(r.rss_mib, 0)} | ${g(r.analyses_queued)} | ${g(r.analysed_per_s)} | ${g(r.transcriptions_queued)} | ${g(r.transcribed_per_s, 2)} | ${r.open_fds} |`,
    );
  console.log(`\nWAL after the load stopped: ${after.map((a) => `+${a.t_s} s ${f(a.wal_mib)} MiB`).join(", ")}`);
  console.log(`RSS and open descriptors after the load stopped: ${after.map((a) => `+${a.t_s} s ${f(a.rss_mib, 0)} MiB/${a.open_fds}`).join(", ")}`);
  if (clip) console.log(`Transcriptions queued after the load stopped: ${after.map((a) => `+${a.t_s} s ${g(a.transcriptions_queued)}`).join(", ")}`);
  console.log(
    `Analysis after the load stopped (queued, analysed/s): ${after.map((a) => `+${a.t_s} s ${g(a.analyses_queued)}, ${g(a.analysed_per_s)}`).join("; ")}`,
  );
}
if (lost || failures) process.exitCode = 1;
