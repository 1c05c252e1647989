/**
 * @module bench/api
 * Throughput and latency of authenticated `GET /api/v1/links/{uuid}/` and `GET /api/v1/links/`
 * on loopback, side by side with a ceiling (bench/api-baseline.ts: bare Bun.serve + bun:sqlite
 * over the same database file, same JSON). Both servers are child processes; autocannon (in
 * this process) loads one at a time for a fixed time at a fixed concurrency, after a warm-up.
 * Then, with the servers stopped, it times the steps of Earshot's request path in-process to
 * show where the time goes. Prints figures; asserts nothing about time.
 *
 *   npx bun bench/api.ts [--duration 10] [--connections 16] [--warmup 3] [--links 20]
 *                        [--breakdown-iterations 3000] [--keep]
 *                        [--database-url postgres://…/EMPTY_DB] [--nodes 2] [--postgres-pid PID]
 *                        [--only link|list]
 *
 * `--database-url`: Earshot and the ceiling run on that PostgreSQL database (empty: the first
 * command migrates it; not dropped afterwards); the ceiling then uses `pg` (a pool of 10) with the
 * same SQL. `--nodes N` starts N Earshot servers on it and splits the connections between them
 * (server CPU summed). `--postgres-pid`: the postmaster of a cluster only this bench uses; its CPU
 * (with its backends) is reported as database CPU. No in-process breakdown on PostgreSQL.
 * `--only link|list`: load one endpoint only (e.g. with BUN_OPTIONS="--cpu-prof …" to profile it).
 *
 * Setup: temp data dir, `workspace create --plan enterprise --json`, the workspace's
 * `requests_per_minute` raised with a direct SQL UPDATE (the plan's 600/min would otherwise
 * answer 429 within a second), links with 5 questions each created through the API.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { clusterTicks, cpuTicks, machineBusyTicks } from "./proc-stat.ts";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { Kysely, SqliteDialect } from "kysely";
import { freePort, REPO_DIR, runCli, startServer } from "../test/helpers/process.ts";
import { loadConfig } from "../src/config.ts";
import { createAppDeps } from "../src/app-deps.ts";
import { hashApiKey } from "../src/auth/keys.ts";
import { findActiveTokenByHash, isTokenActive, touchToken } from "../src/modules/tokens/repository.ts";
import { addApiCalls, findWorkspaceByUuid } from "../src/modules/workspaces/repository.ts";
import { getLink, listLinks, type LinkDeps } from "../src/modules/links/service.ts";
import type { Database as Schema } from "../src/db/schema.ts";
import { openDatabase } from "../src/db/client.ts";

const RAISED_REQUESTS_PER_MINUTE = 1_000_000_000;
const PUBLIC_URL = "http://localhost:8080";
const CLOCK_TICKS_PER_S = 100; // Linux USER_HZ, the unit of /proc/<pid>/stat utime/stime

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "16" },
    warmup: { type: "string", default: "3" },
    links: { type: "string", default: "20" },
    "breakdown-iterations": { type: "string", default: "3000" },
    keep: { type: "boolean", default: false },
    "database-url": { type: "string" },
    nodes: { type: "string", default: "1" },
    "postgres-pid": { type: "string" },
    only: { type: "string" },
  },
});
const databaseUrl = flags["database-url"];
const nodeCount = Number(flags.nodes);
const postgresPid = flags["postgres-pid"] ? Number(flags["postgres-pid"]) : null;
if (!(nodeCount >= 1) || (nodeCount > 1 && !databaseUrl)) throw new Error("--nodes N>1 needs --database-url (several nodes share one PostgreSQL database)");
const durationS = Number(flags.duration);
const connections = Number(flags.connections);
const warmupS = Number(flags.warmup);
const linkCount = Number(flags.links);
const iterations = databaseUrl ? 0 : Number(flags["breakdown-iterations"]);
if (!(durationS > 0 && connections >= 1 && warmupS >= 0 && linkCount >= 1 && iterations >= 0)) {
  throw new Error("usage: bench/api.ts [--duration S>0] [--connections N>=1] [--warmup S>=0] [--links N>=1] [--breakdown-iterations N>=0] [--keep]");
}

const loadAtStart = loadavg()
  .map((x) => x.toFixed(2))
  .join(" ");
const dataDir = mkdtempSync(path.join(tmpdir(), "earshot-bench-api-"));
const children: { kill(signal?: number | NodeJS.Signals): void }[] = [];
const nodeDirs: string[] = [];
// Bound the whole run: four measured phases plus setup; whatever happens, stop by ourselves.
const budgetMs = (4 * (durationS + 2 * warmupS) + 180) * 1000;
const watchdog = setTimeout(() => {
  process.stderr.write(`bench/api: still running after ${budgetMs / 1000} s; stopping\n`);
  process.exit(3);
}, budgetMs);
// On any way out (a failed check, the watchdog, Ctrl-C) leave no server running and no temp data.
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
  if (flags.keep) process.stderr.write(`data kept in ${dataDir}\n`);
  else for (const d of [dataDir, ...nodeDirs]) rmSync(d, { recursive: true, force: true });
});
process.once("SIGINT", () => process.exit(130));

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** CPU figures are in cores (1.0 = one core busy for the whole run). */
type Measured = {
  rps: number;
  p50: number;
  p99: number;
  serverCpu: number;
  dbCpu: number;
  loadgenCpu: number;
  otherCpu: number;
  cpuUsPerReq: number;
  dbUsPerReq: number;
  bytes: number;
};

/**
 * Loads `baseUrls` (the connections split between them) with the given paths for `seconds`;
 * latencies are exact (ms, float), 2xx only; server CPU is summed over `pids`.
 */
async function load(baseUrls: string[], paths: string[], headers: Record<string, string>, seconds: number, pids: number[]): Promise<Measured> {
  const latencies: number[] = [];
  let bytes = 0;
  const serverTicks = () => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
  const [server0, db0, self0, machine0] = [serverTicks(), clusterTicks(postgresPid), cpuTicks(process.pid), machineBusyTicks()];
  const t0 = performance.now();
  const runOne = (baseUrl: string, share: number) =>
    new Promise<void>((resolve, reject) => {
      const instance = autocannon(
        { url: baseUrl, connections: share, duration: seconds, requests: paths.map((p) => ({ method: "GET", path: p, headers })) },
        (err, result) => {
          if (err) return reject(err);
          if (result.non2xx || result.errors) return reject(new Error(`${baseUrl}: ${result.non2xx} non-2xx, ${result.errors} errors`));
          resolve();
        },
      );
      instance.on("response", (_client, status, resBytes, ms) => {
        if (status >= 200 && status < 300) {
          latencies.push(ms);
          bytes += resBytes;
        }
      });
    });
  await Promise.all(baseUrls.map((u, i) => runOne(u, Math.floor(connections / baseUrls.length) + (i < connections % baseUrls.length ? 1 : 0))));
  const wallS = (performance.now() - t0) / 1000;
  const [serverS, dbS, selfS, machineS] = [
    serverTicks() - server0,
    clusterTicks(postgresPid) - db0,
    cpuTicks(process.pid) - self0,
    machineBusyTicks() - machine0,
  ].map((t) => t / CLOCK_TICKS_PER_S) as [number, number, number, number];
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: latencies.length / wallS,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    serverCpu: serverS / wallS,
    dbCpu: dbS / wallS,
    loadgenCpu: selfS / wallS,
    otherCpu: Math.max(0, machineS - serverS - dbS - selfS) / wallS,
    cpuUsPerReq: (serverS * 1e6) / latencies.length,
    dbUsPerReq: (dbS * 1e6) / latencies.length,
    bytes: bytes / latencies.length,
  };
}

const json = async (res: Response) => {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};

// ---- setup ---------------------------------------------------------------------------------
const dbEnv: Record<string, string> = databaseUrl ? { EARSHOT_DATABASE_URL: databaseUrl } : {};
const created = await runCli(["workspace", "create", "--name", "Bench", "--plan", "enterprise", "--json"], { dataDir, env: dbEnv });
if (created.code !== 0) throw new Error(`workspace create failed: ${created.stderr}`);
const { workspace_uuid: workspaceUuid, api_key: apiKey } = JSON.parse(created.stdout) as { workspace_uuid: string; api_key: string };
const dbFile = path.join(dataDir, "earshot.db");
{
  const target = openDatabase(databaseUrl ?? dbFile);
  await target.updateTable("workspaces").set({ requests_per_minute: RAISED_REQUESTS_PER_MINUTE }).where("uuid", "=", workspaceUuid).execute();
  await target.destroy();
}
const auth = { authorization: `Bearer ${apiKey}` };
const env = { ...dbEnv, EARSHOT_PUBLIC_URL: PUBLIC_URL };
// Several nodes: each its own data directory, one database.
const nodes = [];
for (let i = 0; i < nodeCount; i++) {
  const nodeDir = i === 0 ? dataDir : mkdtempSync(path.join(tmpdir(), "earshot-bench-api-node-"));
  if (i > 0) nodeDirs.push(nodeDir);
  const node = await startServer({ dataDir: nodeDir, env });
  children.push(node.proc);
  nodes.push(node);
}
const earshot = nodes[0]!;

const linkUuids: string[] = [];
for (let i = 0; i < linkCount; i++) {
  const body = {
    name: `Bench link ${i + 1}`,
    settings: { description: "How did we do this week?" },
    questions: [
      { prompt: "Tell us about your visit.", type: "voice", configuration: { max_duration: 120 } },
      { prompt: "What should we improve?", type: "text" },
      { prompt: "How likely are you to recommend us?", type: "rating", field_key: "nps", configuration: { scale_type: "nps" } },
      { prompt: "Which plan are you on?", type: "multiple_choice", configuration: { options: ["Free", "Pro", "Enterprise"] } },
      { prompt: "Why that score?", type: "text", condition: { show_if: "field_value", field: "nps", operator: "less_than", value: 7 } },
    ],
  };
  const link = await json(
    await fetch(`${earshot.baseUrl}/api/v1/links/`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
  linkUuids.push(link.uuid);
}

const baselinePort = await freePort();
const baseline = Bun.spawn(
  [
    process.execPath,
    path.join(REPO_DIR, "bench", "api-baseline.ts"),
    "--db",
    databaseUrl ?? dbFile,
    "--port",
    String(baselinePort),
    "--workspace",
    workspaceUuid,
    "--public-url",
    PUBLIC_URL,
  ],
  { stdout: "ignore", stderr: "inherit" },
);
children.push(baseline);
const baselineUrl = `http://127.0.0.1:${baselinePort}`;
for (const deadline = Date.now() + 15_000; ; await Bun.sleep(100)) {
  if (
    await fetch(`${baselineUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  if (Date.now() > deadline || baseline.exitCode !== null) throw new Error("the baseline server did not start");
}

// Same request, same answer: the comparison is only fair if both bodies are equal.
for (const p of [`/api/v1/links/${linkUuids[0]}/`, "/api/v1/links/"]) {
  const [a, b] = await Promise.all([fetch(earshot.baseUrl + p, { headers: auth }).then(json), fetch(baselineUrl + p, { headers: auth }).then(json)]);
  if (!Bun.deepEquals(a, b, true)) throw new Error(`bodies differ for ${p}:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
}

// ---- load ----------------------------------------------------------------------------------
const endpoints = [
  { key: "link", name: `GET /api/v1/links/{uuid}/ (${linkCount} links in turn)`, paths: linkUuids.map((u) => `/api/v1/links/${u}/`) },
  { key: "list", name: `GET /api/v1/links/ (page of ${Math.min(linkCount, 20)} links)`, paths: ["/api/v1/links/"] },
].filter((e) => !flags.only || e.key === flags.only);
const targets = [
  { name: nodeCount > 1 ? `earshot × ${nodeCount}` : "earshot", urls: nodes.map((n) => n.baseUrl), pids: nodes.map((n) => n.proc.pid) },
  { name: "baseline", urls: [baselineUrl], pids: [baseline.pid] },
];
const results: { endpoint: string; target: string; m: Measured }[] = [];
for (const e of endpoints) {
  for (const t of targets) {
    process.stderr.write(`${e.name} → ${t.name}: warm-up ${warmupS} s, measure ${durationS} s\n`);
    if (warmupS > 0) await load(t.urls, e.paths, auth, warmupS, t.pids);
    results.push({ endpoint: e.name, target: t.name, m: await load(t.urls, e.paths, auth, durationS, t.pids) });
  }
}
for (const n of nodes) await n.stop();
baseline.kill("SIGTERM");
await baseline.exited;

// ---- report --------------------------------------------------------------------------------
const f = (x: number, d = 0) => x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
console.log(`\nEarshot API bench — ${new Date().toISOString()}, Bun ${Bun.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"})`);
console.log(`autocannon, 127.0.0.1, ${connections} connections, ${durationS} s measured after ${warmupS} s warm-up, one target at a time`);
console.log(
  `Database: ${databaseUrl ? `PostgreSQL (${databaseUrl.replace(/\/\/[^@/]*@/, "//")}); Earshot on ${nodeCount} node${nodeCount > 1 ? "s" : ""}, the ceiling through pg` : "SQLite file; the ceiling through bun:sqlite"}.`,
);
console.log(`NOTE: the bench raised workspaces.requests_per_minute to ${f(RAISED_REQUESTS_PER_MINUTE)} with a direct SQL UPDATE (plan default: 600/min).`);
console.log(`Bodies checked equal (Earshot vs baseline) before loading. Load average at start: ${loadAtStart}.\n`);
console.log("CPU columns are % of one core; 'other' is everything else on the machine during the run (keep it near 0 for clean figures).\n");
console.log("| endpoint | server | req/s | p50 ms | p99 ms | body B | server CPU | server CPU µs/req | database CPU µs/req | loadgen CPU | other CPU |");
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of results) {
  const m = r.m;
  const dbCol = postgresPid === null ? "–" : f(m.dbUsPerReq);
  console.log(
    `| ${r.endpoint} | ${r.target} | ${f(m.rps)} | ${f(m.p50, 2)} | ${f(m.p99, 2)} | ${f(m.bytes)} | ${f(100 * m.serverCpu)} % | ${f(m.cpuUsPerReq)} | ${dbCol} | ${f(100 * m.loadgenCpu)} % | ${f(100 * m.otherCpu)} % |`,
  );
}
console.log("\n| endpoint | Earshot / baseline req/s | p50 ratio | CPU/req ratio |");
console.log("| --- | ---: | ---: | ---: |");
for (const e of endpoints) {
  const [a, b] = [
    results.find((r) => r.endpoint === e.name && r.target !== "baseline")!.m,
    results.find((r) => r.endpoint === e.name && r.target === "baseline")!.m,
  ];
  console.log(`| ${e.name} | ${f(a.rps / b.rps, 2)} | ${f(a.p50 / b.p50, 1)}× | ${f(a.cpuUsPerReq / b.cpuUsPerReq, 1)}× |`);
}

// ---- where the time goes: Earshot's request steps, in-process, servers stopped ------------------
if (iterations > 0) {
  // Loopback is not visible to app.handle(), so allow plain HTTP as the socket path does for 127.0.0.1.
  const config = loadConfig({ EARSHOT_PUBLIC_URL: PUBLIC_URL, EARSHOT_ALLOW_INSECURE_HTTP: "1", EARSHOT_LOG_LEVEL: "warn" }, { dataDir });
  // The app as src/server.ts wires it (src/app-deps.ts), over the same data directory.
  const wiring = await createAppDeps(config, { migrate: false, signingSecret: "bench", webAssets: new Map() });
  const { db, app } = wiring;
  const authenticator = wiring.deps.auth;
  // The same file behind Kysely with statements prepared once (bun:sqlite's cached `query`)
  // instead of `prepare` on every execution, with the pragmas of src/db/client.ts.
  const raw = new Database(dbFile);
  for (const pragma of ["synchronous = NORMAL", "foreign_keys = ON", "busy_timeout = 5000"]) raw.exec(`PRAGMA ${pragma}`);
  const cached = new Kysely<Schema>({
    dialect: new SqliteDialect({ database: { prepare: (sql: string) => raw.query(sql), close: () => raw.close() } as never }),
  });
  const linkUrl = `${PUBLIC_URL}/api/v1/links/${linkUuids[0]}/`;
  const listUrl = `${PUBLIC_URL}/api/v1/links/`;
  const ctx = await authenticator.authenticate(new Request(linkUrl, { headers: auth }), "127.0.0.1", "links:read");
  const token = (await findActiveTokenByHash(db, hashApiKey(apiKey)))!;
  // As links/routes.ts builds them.
  const deps: LinkDeps = { db, publicUrl: config.publicUrl, auth: authenticator, webhookAllowHosts: config.webhookAllowHosts };
  const cachedDeps = { ...deps, db: cached };
  const newest = { status: "all", orderBy: "date_created", direction: "desc" } as const;
  const link = await getLink(deps, ctx, linkUuids[0]!);
  const page = await listLinks(deps, ctx, newest, 20, 0);
  const usageWrite = (q: typeof db) =>
    q.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      await touchToken(trx, token.uuid, now);
      await addApiCalls(trx, workspaceUuid, now.slice(0, 10), 1);
    });
  const rawTouch = raw.query("update api_tokens set last_used_at = ? where uuid = ?");
  const rawCount = raw.query(
    "insert into api_call_counters (workspace_uuid, day, calls) values (?, ?, 1) on conflict (workspace_uuid, day) do update set calls = calls + 1",
  );
  const rawUsageWrite = raw.transaction(() => {
    const now = new Date().toISOString();
    rawTouch.run(now, token.uuid);
    rawCount.run(workspaceUuid, now.slice(0, 10));
  });
  const steps: [string, () => unknown][] = [
    ["app.handle(GET link): whole request minus the socket", () => app.handle(new Request(linkUrl, { headers: auth })).then((r) => r.text())],
    [
      "  authenticate(): key hash, token + workspace lookup, rate limit, usage record",
      () => authenticator.authenticate(new Request(linkUrl, { headers: auth }), "127.0.0.1", "links:read"),
    ],
    ["    token lookup by key hash (compiled once)", () => findActiveTokenByHash(db, token.key_hash)],
    ["    workspace lookup (compiled once)", () => findWorkspaceByUuid(db, workspaceUuid)],
    ["    usage record (memory; flushed ≤ 0.5 s later)", () => authenticator.usage.record(token.uuid, workspaceUuid, new Date().toISOString())],
    ["for comparison: the old per-request usage write txn", () => usageWrite(db)],
    ["  getLink(): 3 queries + toLink", () => getLink(deps, ctx, linkUuids[0]!)],
    ["  assertActive(): revocation re-check", () => isTokenActive(db, token.uuid)],
    ["  JSON.stringify(link)", () => JSON.stringify(link)],
    ["app.handle(GET links/): whole request minus the socket", () => app.handle(new Request(listUrl, { headers: auth })).then((r) => r.text())],
    ["  listLinks(): 4 queries + 20× toLink", () => listLinks(deps, ctx, newest, 20, 0)],
    ["  JSON.stringify(page)", () => JSON.stringify(page)],
    [
      "for comparison: token lookup built by Kysely on each call",
      () => cached.selectFrom("api_tokens").selectAll().where("key_hash", "=", token.key_hash).where("revoked_at", "is", null).executeTakeFirst(),
    ],
    ["for comparison: usage write txn, statements prepared once", () => usageWrite(cached)],
    ["for comparison: usage write txn, raw bun:sqlite", () => rawUsageWrite()],
    ["for comparison: getLink(), statements prepared once", () => getLink(cachedDeps, ctx, linkUuids[0]!)],
    ["for comparison: listLinks(), statements prepared once", () => listLinks(cachedDeps, ctx, newest, 20, 0)],
  ];
  // Rounds interleave the steps so that other load on the machine spreads over all of them;
  // the best round is the least disturbed estimate of a step's own cost.
  const ROUNDS = 5;
  const perRound = Math.max(1, Math.floor(iterations / ROUNDS));
  const rounds = steps.map(() => [] as number[]);
  for (const [, fn] of steps) for (let i = 0; i < perRound; i++) await fn();
  for (let r = 0; r < ROUNDS; r++) {
    for (const [k, [, fn]] of steps.entries()) {
      const t0 = performance.now();
      for (let i = 0; i < perRound; i++) await fn();
      rounds[k]!.push(((performance.now() - t0) * 1000) / perRound);
    }
  }
  console.log(
    `\nWhere the time goes (in-process, servers stopped, one call at a time; ${ROUNDS} rounds of ${f(perRound)} calls after ${f(perRound)} warm-up calls):\n`,
  );
  console.log("| step (Kysely as in src/ unless said) | best round µs/call | median round µs/call |");
  console.log("| --- | ---: | ---: |");
  for (const [k, [name]] of steps.entries()) {
    const sorted = [...rounds[k]!].sort((a, b) => a - b);
    console.log(`| ${name.replace(/^ +/, (m) => "· ".repeat(m.length / 2))} | ${f(sorted[0]!, 1)} | ${f(sorted[Math.floor(ROUNDS / 2)]!, 1)} |`);
  }
  await cached.destroy();
  await wiring.close();
}

clearTimeout(watchdog);
