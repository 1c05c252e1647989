/**
 * @module bench/intake
 * Completed responses per second through the public intake API (docs/intake.md), from this
 * process against a real `earshot serve` child process on loopback. A respondent starts a session,
 * answers three text questions and submits: five requests, one after the other. Then checks that
 * every acknowledged submission is stored exactly once. Prints figures; asserts nothing about time.
 *
 *   npx bun bench/intake.ts [--respondents 32] [--duration 10] [--warmup 3] [--half-duration 10]
 *                           [--jobs-paused] [--bin dist/earshot] [--cpu-prof DIR] [--keep]
 *                           [--database-url postgres://…/EMPTY_DB] [--nodes 2] [--postgres-pid PID]
 *                           [--synchronous full|normal] [--drain S]
 *
 * `--database-url`: run on that PostgreSQL database instead of a SQLite file (it should be empty:
 * the first command migrates it; the bench does not drop it). `--nodes N`: start N servers on the
 * same database (PostgreSQL only; DESIGN §11) and spread the respondents over them (respondent i
 * talks to node i mod N); server CPU is then the sum over the nodes. `--postgres-pid PID`: the
 * postmaster of a cluster that only this bench uses; its CPU (postmaster and backends) is reported
 * as database CPU, and left out of "other". `--synchronous`: the server's
 * `EARSHOT_SQLITE_SYNCHRONOUS` (SQLite; unset = the server's default). `--drain S`: after the load,
 * S more seconds with no respondents while the servers work off the queued analysis jobs; their
 * CPU divided by the answers analysed meanwhile is the whole analysis path's CPU per answer.
 *
 * Phases: (1) closed loop — `--respondents` respondents, each starting the next response as soon
 * as the last one is acknowledged, for `--warmup` then `--duration` seconds: the throughput;
 * (2) open loop at half that rate — new respondents arrive at fixed intervals whatever the
 * server's speed — for `--half-duration` seconds: latency at half load. Latency is the time from
 * sending `POST sessions/` to the `200` of `POST …/submit/`.
 *
 * The server runs with `EARSHOT_INTAKE_SESSIONS_PER_MINUTE=0`: every respondent comes from
 * 127.0.0.1, and the per-address session limit (60 a minute by default) would otherwise answer 429
 * within a second. Submitting text answers queues their analysis jobs; they run in the server's
 * inference worker during the load unless `--jobs-paused` (`EARSHOT_JOBS_PAUSED=1`).
 */
import { sql } from "kysely";
import { mkdtempSync, rmSync } from "node:fs";
import { clusterTicks, cpuTicks, machineBusyTicks } from "./proc-stat.ts";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { runCli, startServer } from "../test/helpers/process.ts";
import { openDatabase } from "../src/db/client.ts";
import { cpuTicksByThreadName } from "../test/helpers/thread-cpu.ts";

const CLOCK_TICKS_PER_S = 100; // Linux USER_HZ, the unit of /proc/<pid>/stat utime/stime

const { values: flags } = parseArgs({
  options: {
    respondents: { type: "string", default: "32" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    "half-duration": { type: "string", default: "10" },
    "jobs-paused": { type: "boolean", default: false },
    bin: { type: "string" },
    "cpu-prof": { type: "string" },
    keep: { type: "boolean", default: false },
    "database-url": { type: "string" },
    nodes: { type: "string", default: "1" },
    "postgres-pid": { type: "string" },
    synchronous: { type: "string" },
    drain: { type: "string", default: "0" },
  },
});
/** The postmaster of a cluster only this bench uses: its CPU and its backends' is reported as the database's. */
const postgresPid = flags["postgres-pid"] ? Number(flags["postgres-pid"]) : null;
const databaseUrl = flags["database-url"];
const nodeCount = Number(flags.nodes);
if (!(nodeCount >= 1) || (nodeCount > 1 && !databaseUrl)) throw new Error("--nodes N>1 needs --database-url (several nodes share one PostgreSQL database)");
const respondents = Number(flags.respondents);
const durationS = Number(flags.duration);
const warmupS = Number(flags.warmup);
const halfS = Number(flags["half-duration"]);
if (!(respondents >= 1 && durationS > 0 && warmupS >= 0 && halfS >= 0)) {
  throw new Error("usage: bench/intake.ts [--respondents N>=1] [--duration S>0] [--warmup S>=0] [--half-duration S>=0] [--jobs-paused] [--bin PATH] [--keep]");
}

const loadAtStart = loadavg()
  .map((x) => x.toFixed(2))
  .join(" ");
const dataDir = mkdtempSync(path.join(tmpdir(), "earshot-bench-intake-"));
const serverProcs: { kill(signal?: number | NodeJS.Signals): void }[] = [];
const nodeDirs: string[] = [];
const budgetMs = (warmupS + durationS + halfS + Number(flags.drain) + 240) * 1000;
const watchdog = setTimeout(() => {
  process.stderr.write(`bench/intake: still running after ${budgetMs / 1000} s; stopping\n`);
  process.exit(3);
}, budgetMs);
process.on("exit", () => {
  for (const p of serverProcs) p.kill("SIGKILL");
  if (flags.keep) process.stderr.write(`data kept in ${dataDir}\n`);
  else for (const d of [dataDir, ...nodeDirs]) rmSync(d, { recursive: true, force: true });
});
process.once("SIGINT", () => process.exit(130));

const percentile = (sorted: Float64Array, p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

// ---- setup ---------------------------------------------------------------------------------
// --bin: a compiled binary, or another tree's src/cli.ts (run with this Bun) to compare versions.
const bin = flags.bin ? (flags.bin.endsWith(".ts") ? [process.execPath, path.resolve(flags.bin)] : [path.resolve(flags.bin)]) : undefined;
const dbEnv: Record<string, string> = databaseUrl ? { EARSHOT_DATABASE_URL: databaseUrl } : {};
const created = await runCli(["workspace", "create", "--name", "Bench", "--plan", "enterprise", "--json"], { dataDir, bin, env: dbEnv });
if (created.code !== 0) throw new Error(`workspace create failed: ${created.stderr}`);
const { api_key: apiKey } = JSON.parse(created.stdout) as { api_key: string };
const env: Record<string, string> = { ...dbEnv, EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0", EARSHOT_PUBLIC_URL: "http://localhost:8080" };
if (flags["jobs-paused"]) env.EARSHOT_JOBS_PAUSED = "1";
if (flags.synchronous) env.EARSHOT_SQLITE_SYNCHRONOUS = flags.synchronous;
// A CPU profile of the server (Bun writes it to DIR when the server exits).
if (flags["cpu-prof"]) env.BUN_OPTIONS = `--cpu-prof --cpu-prof-dir=${path.resolve(flags["cpu-prof"])}`;
// Several nodes: each its own data directory (signing secret shared through the database), one database.
const servers = [];
for (let i = 0; i < nodeCount; i++) {
  const nodeDir = i === 0 ? dataDir : mkdtempSync(path.join(tmpdir(), "earshot-bench-intake-node-"));
  if (i > 0) nodeDirs.push(nodeDir);
  const s = await startServer({ dataDir: nodeDir, env, bin });
  serverProcs.push(s.proc);
  servers.push(s);
}
const server = servers[0]!;
const pids = servers.map((s) => s.proc.pid);
// Analysed answers counted in the database (issue 24: the CPU each analysed answer costs).
const statsDb = openDatabase(databaseUrl ?? path.join(dataDir, "earshot.db"));
const analysedCount = async () =>
  Number((await sql<{ n: number }>`select count(*) as n from answers where analysis_status = 'completed'`.execute(statsDb)).rows[0]?.n ?? 0);
/** CPU ticks of the servers' Bun `Worker` threads (the inference worker runs the analysis; the WAL checkpoint worker is idle under this load). */
const workerTicks = () => pids.reduce((sum, pid) => sum + (cpuTicksByThreadName(pid).get("Worker") ?? 0), 0);

const linkRes = await fetch(`${server.baseUrl}/api/v1/links/`, {
  method: "POST",
  headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
  body: JSON.stringify({
    name: "Bench intake",
    questions: [
      { prompt: "What brought you here today?", type: "text" },
      { prompt: "What should we improve?", type: "text" },
      { prompt: "Anything else?", type: "text", required: false },
    ],
  }),
});
if (linkRes.status !== 201) throw new Error(`link create: ${linkRes.status} ${await linkRes.text()}`);
const link = (await linkRes.json()) as { public_url: string; questions: { uuid: string }[] };
const [, wsSlug, linkSlug] = /\/w\/([^/]+)\/i\/([^/]+)/.exec(link.public_url)!;
const bases = servers.map((s) => `${s.baseUrl}/api/v1/intake/${wsSlug}/${linkSlug}/`);
const base = bases[0]!;
const questionUuids = link.questions.map((q) => q.uuid);
const ANSWERS = [
  "I wanted to compare plans before renewing.",
  "The checkout page was slow on my phone and lost my address once.",
  "Support answered quickly, thank you.",
];

// ---- the respondent ------------------------------------------------------------------------
const JSON_HEADERS = { "content-type": "application/json" };
const acknowledged: string[] = [];
let failures = 0;
let firstFailure = "";

async function call(method: string, url: string, body: unknown, want: number): Promise<any> {
  const res = await fetch(url, { method, headers: JSON_HEADERS, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== want) throw new Error(`${method} ${url.slice(base.length - 1)}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** One respondent's whole response; returns its latency in ms, or null when a request failed. */
async function respond(n: number): Promise<number | null> {
  const t0 = performance.now();
  const base = bases[n % bases.length]!;
  try {
    const s = await call("POST", `${base}sessions/`, {}, 201);
    for (const [i, q] of questionUuids.entries()) {
      await call("PUT", `${base}sessions/${s.session_id}/answers/${q}/`, { value: `${ANSWERS[i]} (#${n})` }, 200);
    }
    const done = await call("POST", `${base}sessions/${s.session_id}/submit/`, {}, 200);
    if (done.status !== "completed") throw new Error(`submit answered ${JSON.stringify(done)}`);
    acknowledged.push(s.response_uuid);
    return performance.now() - t0;
  } catch (err) {
    failures++;
    firstFailure ||= String(err);
    return null;
  }
}

type Phase = {
  completed: number;
  wallS: number;
  latencies: Float64Array;
  serverCpuS: number;
  dbCpuS: number | null;
  selfCpuS: number;
  otherCpuS: number;
  /** Answers whose analysis completed during the phase, and the servers' Worker-thread CPU. */
  analysed: number;
  workerCpuS: number;
};

async function measure(run: (record: (ms: number | null) => void) => Promise<void>): Promise<Phase> {
  const latencies: number[] = [];
  const serversTicks = () => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
  const dbTicks = () => (postgresPid === null ? 0 : clusterTicks(postgresPid));
  const [s0, db0, me0, m0, w0, a0] = [serversTicks(), dbTicks(), cpuTicks(process.pid), machineBusyTicks(), workerTicks(), await analysedCount()];
  const t0 = performance.now();
  await run((ms) => {
    if (ms !== null) latencies.push(ms);
  });
  const wallS = (performance.now() - t0) / 1000;
  const [w, a] = [workerTicks() - w0, (await analysedCount()) - a0];
  const [s, db, me, m] = [serversTicks() - s0, dbTicks() - db0, cpuTicks(process.pid) - me0, machineBusyTicks() - m0].map((t) => t / CLOCK_TICKS_PER_S) as [
    number,
    number,
    number,
    number,
  ];
  return {
    completed: latencies.length,
    wallS,
    latencies: Float64Array.from(latencies).sort(),
    serverCpuS: s,
    dbCpuS: postgresPid === null ? null : db,
    selfCpuS: me,
    otherCpuS: Math.max(0, m - s - db - me),
    analysed: a,
    workerCpuS: w / CLOCK_TICKS_PER_S,
  };
}

let seq = 0;
/** Closed loop: each of `respondents` starts its next response when the last one is acknowledged. */
const closedLoop = (seconds: number) =>
  measure(async (record) => {
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: respondents }, async () => {
        while (performance.now() < until) record(await respond(++seq));
      }),
    );
  });

/** Open loop: a new respondent every 1/rate s for `seconds`, whatever is still in flight. */
const openLoop = (rate: number, seconds: number) =>
  measure(async (record) => {
    const inFlight: Promise<void>[] = [];
    const t0 = performance.now();
    const total = Math.floor(rate * seconds);
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await Bun.sleep(wait);
      inFlight.push(respond(++seq).then(record));
    }
    await Promise.all(inFlight);
  });

// ---- load ----------------------------------------------------------------------------------
process.stderr.write(`closed loop, ${respondents} respondents: warm-up ${warmupS} s, measure ${durationS} s\n`);
if (warmupS > 0) await closedLoop(warmupS);
const full = await closedLoop(durationS);
const fullRate = full.completed / full.wallS;
let half: Phase | null = null;
if (halfS > 0 && fullRate > 0) {
  process.stderr.write(`open loop at ${(fullRate / 2).toFixed(0)} responses/s for ${halfS} s\n`);
  await Bun.sleep(1000);
  half = await openLoop(fullRate / 2, halfS);
}
// (3) drain: no more respondents, the servers only work off the queued analysis jobs for `--drain`
// seconds: all their CPU is then the whole per-answer analysis path (job claim, worker request,
// insights, vector, the answer's write, its theme), divided by the answers analysed meanwhile.
const drainS = Number(flags.drain);
let drain: { analysed: number; serverCpuS: number; workerCpuS: number; wallS: number } | null = null;
if (drainS > 0) {
  await Bun.sleep(500); // the last responses' requests settle
  const [s0, w0, a0, t0] = [pids.reduce((sum, pid) => sum + cpuTicks(pid), 0), workerTicks(), await analysedCount(), performance.now()];
  await Bun.sleep(drainS * 1000);
  const [s1, w1, a1] = [pids.reduce((sum, pid) => sum + cpuTicks(pid), 0), workerTicks(), await analysedCount()];
  drain = { analysed: a1 - a0, serverCpuS: (s1 - s0) / CLOCK_TICKS_PER_S, workerCpuS: (w1 - w0) / CLOCK_TICKS_PER_S, wallS: (performance.now() - t0) / 1000 };
}
for (const s of servers) await s.stop();
serverProcs.length = 0;
await statsDb.destroy();

// ---- exactly once --------------------------------------------------------------------------
const checkDb = openDatabase(databaseUrl ?? path.join(dataDir, "earshot.db"));
const stored = new Map<string, { status: string; answers: number }>();
const { rows: storedRows } = await sql<{
  uuid: string;
  status: string;
  answers: number;
}>`select r.uuid, r.status, (select count(*) from answers a where a.response_uuid = r.uuid) as answers from responses r`.execute(checkDb);
for (const r of storedRows) stored.set(r.uuid, { status: r.status, answers: Number(r.answers) });
const totalRows = storedRows.length;
await checkDb.destroy();
const ackSet = new Set(acknowledged);
const missing = acknowledged.filter((u) => stored.get(u)?.status !== "completed" || stored.get(u)?.answers !== 3);
const extraCompleted = [...stored].filter(([u, r]) => r.status === "completed" && !ackSet.has(u)).length;

// ---- report --------------------------------------------------------------------------------
const f = (x: number, d = 0) => x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const row = (name: string, p: Phase) =>
  `| ${name} | ${f(p.completed / p.wallS)} | ${f(percentile(p.latencies, 50), 1)} | ${f(percentile(p.latencies, 99), 1)} | ${f(p.latencies[p.latencies.length - 1] ?? NaN, 1)} | ${f((100 * p.serverCpuS) / p.wallS)} % | ${f((p.serverCpuS * 1e6) / Math.max(1, p.completed))} | ${p.dbCpuS === null ? "–" : `${f((100 * p.dbCpuS) / p.wallS)} % (${f((p.dbCpuS * 1e6) / Math.max(1, p.completed))} µs)`} | ${f((100 * p.selfCpuS) / p.wallS)} % | ${f((100 * p.otherCpuS) / p.wallS)} % |`;
console.log(
  `\nEarshot intake bench — ${new Date().toISOString()}, Bun ${Bun.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), server: ${flags.bin ?? "bun src/cli.ts"}`,
);
console.log(
  `Database: ${databaseUrl ? `PostgreSQL (${databaseUrl.replace(/\/\/[^@/]*@/, "//")}), ${nodeCount} node${nodeCount > 1 ? "s" : ""}` : `SQLite file, 1 node, synchronous ${flags.synchronous ?? "(server default)"}`}.`,
);
console.log(
  `A response = POST sessions/ + 3 × PUT answers (text) + POST submit/, one request after the other; latency = first request sent → submit acknowledged.`,
);
console.log(`NOTE: the server ran with EARSHOT_INTAKE_SESSIONS_PER_MINUTE=0 (the per-address session limit is off: all respondents are 127.0.0.1).`);
console.log(
  `Analysis jobs of the text answers: ${flags["jobs-paused"] ? "paused (EARSHOT_JOBS_PAUSED=1)" : "running in the server during the load"}. Load average at start: ${loadAtStart}.\n`,
);
console.log("| phase | completed/s | p50 ms | p99 ms | max ms | server CPU | server CPU µs/response | database CPU (µs/response) | loadgen CPU | other CPU |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
console.log(row(`closed loop, ${respondents} respondents, ${durationS} s`, full));
if (half) console.log(row(`open loop at half (${f(fullRate / 2)}/s), ${halfS} s`, half));
const analysisRow = (name: string, p: Phase) =>
  `| ${name} | ${f(p.analysed / p.wallS)} | ${f((p.workerCpuS * 1e6) / Math.max(1, p.analysed))} | ${f(((p.serverCpuS - p.workerCpuS) * 1e6) / Math.max(1, p.completed))} |`;
console.log("\n| phase | answers analysed/s | Worker-thread CPU µs/analysed answer | server CPU outside Worker threads µs/response |");
console.log("| --- | ---: | ---: | ---: |");
console.log(analysisRow("closed loop", full));
if (half) console.log(analysisRow("open loop at half", half));
if (drain) {
  console.log(
    `\nDrain (${f(drain.wallS, 1)} s, no respondents, analysis jobs only): ${f(drain.analysed)} answers analysed (${f(drain.analysed / drain.wallS)}/s); server CPU ${f((drain.serverCpuS * 1e6) / Math.max(1, drain.analysed))} µs per analysed answer, of which Worker threads ${f((drain.workerCpuS * 1e6) / Math.max(1, drain.analysed))} µs and the rest (job runner, database writes, theme) ${f(((drain.serverCpuS - drain.workerCpuS) * 1e6) / Math.max(1, drain.analysed))} µs.`,
  );
}
console.log(
  `\nExactly once: ${f(acknowledged.length)} submissions acknowledged; ${missing.length} of them not stored completed with 3 answers; ${extraCompleted} completed rows never acknowledged; ${f(totalRows)} response rows in all (sessions left open at the deadline stay 'started').`,
);
console.log(`Failed respondents: ${failures}${firstFailure ? ` (first: ${firstFailure})` : ""}`);
clearTimeout(watchdog);
if (missing.length || extraCompleted || failures) process.exitCode = 1;
