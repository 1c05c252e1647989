/**
 * @module bench/startup
 * Start-up time and idle memory of the compiled binary: from `exec` of `dist/earshot serve` to
 * the first `200` of `GET /healthz`, `--runs` times each with a fresh data directory (first start:
 * migrations from nothing, default workspace, key printed) and with an existing one (the usual
 * restart); then the resident set size of an idle server (no model loaded). Prints figures;
 * asserts nothing about time.
 *
 *   npx bun scripts/build.ts && npx bun bench/startup.ts [--bin dist/earshot] [--runs 10] [--idle 3]
 *
 * The ceiling, measured the same way in the same run: a compiled minimal `Bun.serve` that opens
 * the same SQLite file and answers `/healthz` (built into a temp folder at the start), so the
 * ratio says what Earshot adds to Bun's own start on this machine at this moment.
 *
 * The client polls `/healthz` every 2 ms from this process (a refused connection costs
 * microseconds), so the figure includes the server's whole start: loading the executable,
 * config, opening and migrating the database, the signing secret, the web assets and listening.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { FIXTURE_MODELS_DIR, freePort, REPO_DIR } from "../test/helpers/process.ts";

const { values: flags } = parseArgs({
  options: {
    bin: { type: "string", default: path.join(REPO_DIR, "dist", "earshot") },
    runs: { type: "string", default: "10" },
    idle: { type: "string", default: "3" },
  },
});
const bin = path.resolve(flags.bin!);
const runs = Number(flags.runs);
const idleS = Number(flags.idle);
if (!existsSync(bin)) throw new Error(`${bin} is missing: build it with \`npx bun scripts/build.ts\``);
if (!(runs >= 1 && idleS >= 0)) throw new Error("usage: bench/startup.ts [--bin PATH] [--runs N>=1] [--idle S>=0]");

const loadAtStart = loadavg()
  .map((x) => x.toFixed(2))
  .join(" ");
const dirs: string[] = [];
const live = new Set<{ kill(signal?: number | NodeJS.Signals): void }>();
process.on("exit", () => {
  for (const p of live) p.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
process.once("SIGINT", () => process.exit(130));

// The ceiling: Bun's own start, a server and an open database, nothing else.
const ceilingDir = mkdtempSync(path.join(tmpdir(), "earshot-bench-ceiling-"));
dirs.push(ceilingDir);
const ceilingSrc = path.join(ceilingDir, "ceiling.ts");
await Bun.write(
  ceilingSrc,
  `import { Database } from "bun:sqlite";
const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
const data = process.argv[process.argv.indexOf("--data") + 1];
const db = new Database(data + "/earshot.db", { create: true });
db.exec("PRAGMA journal_mode = WAL");
const health = db.query("select 1 as ok");
Bun.serve({ hostname: "127.0.0.1", port, fetch: () => Response.json({ status: health.get() ? "ok" : "no" }) });
`,
);
const ceilingBin = path.join(ceilingDir, "ceiling");
const built = Bun.spawnSync([process.execPath, "build", "--compile", "--bytecode", "--outfile", ceilingBin, ceilingSrc], { stdout: "ignore", stderr: "pipe" });
if (built.exitCode !== 0) throw new Error(`building the ceiling failed: ${built.stderr.toString()}`);

const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("EARSHOT_")) env[k] = v;
Object.assign(env, { EARSHOT_LOG_LEVEL: "warn", EARSHOT_MODELS_DIR: FIXTURE_MODELS_DIR, EARSHOT_ASR_MODEL: "whisper-tiny-random" });

/** CPU time (user + system, all threads) the process has used, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ ticks
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** One start: ms from spawn to the first 200, and the RSS after `idleS` seconds of idling. */
async function startOnce(dataDir: string, measureRss: boolean, exe = bin): Promise<{ ms: number; cpu: number; rss: number | null }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/healthz`;
  const t0 = performance.now();
  const proc = Bun.spawn([exe, "serve", "--port", String(port), "--data", dataDir], { env, stdout: "ignore", stderr: "pipe" });
  live.add(proc);
  let ms = NaN;
  let cpu = NaN;
  try {
    for (const deadline = t0 + 30_000; performance.now() < deadline; ) {
      if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode}): ${await new Response(proc.stderr).text()}`);
      const ok = await fetch(url).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) {
        ms = performance.now() - t0;
        cpu = cpuMs(proc.pid);
        break;
      }
      await Bun.sleep(2);
    }
    if (Number.isNaN(ms)) throw new Error("no 200 from /healthz within 30 s");
    let rss: number | null = null;
    if (measureRss) {
      await Bun.sleep(idleS * 1000);
      rss = rssMb(proc.pid);
    }
    return { ms, cpu, rss };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    live.delete(proc);
  }
}

const fresh: number[] = [];
const freshCpu: number[] = [];
const freshDirs: string[] = [];
let freshRss: number | null = null;
for (let i = 0; i < runs; i++) {
  const d = mkdtempSync(path.join(tmpdir(), "earshot-bench-start-"));
  dirs.push(d);
  freshDirs.push(d);
  const r = await startOnce(d, i === 0);
  fresh.push(r.ms);
  freshCpu.push(r.cpu);
  if (r.rss !== null) freshRss = r.rss;
}
// A directory Earshot has started in before (the ceiling's directory has no database: starting
// there was a first start, which is why the first "existing" RSS used to read ~4 MB more).
const existingDir = freshDirs[0]!;
const existing: number[] = [];
const existingCpu: number[] = [];
const rss: number[] = [];
for (let i = 0; i < runs; i++) {
  const r = await startOnce(existingDir, i < 3);
  existing.push(r.ms);
  existingCpu.push(r.cpu);
  if (r.rss !== null) rss.push(r.rss);
}

const ceiling: number[] = [];
const ceilingCpu: number[] = [];
const ceilingRss: number[] = [];
for (let i = 0; i < runs; i++) {
  const r = await startOnce(existingDir, i < 3, ceilingBin);
  ceiling.push(r.ms);
  ceilingCpu.push(r.cpu);
  if (r.rss !== null) ceilingRss.push(r.rss);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f = (x: number, d = 0) => x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
console.log(
  `\nEarshot start-up bench — ${new Date().toISOString()}, Bun ${Bun.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${path.relative(REPO_DIR, bin) || bin}`,
);
console.log(
  `Load average at start: ${loadAtStart}; after: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}.\n`,
);
console.log("CPU = the server's user + system time up to its first 200 (all threads; 10 ms ticks): unlike wall time, it hardly moves with other load.\n");
console.log("| data directory | runs | exec → first 200 median ms | min ms | max ms | CPU median ms |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
console.log(`| fresh (first start) | ${runs} | ${f(median(fresh), 1)} | ${f(Math.min(...fresh), 1)} | ${f(Math.max(...fresh), 1)} | ${f(median(freshCpu))} |`);
console.log(`| existing | ${runs} | ${f(median(existing), 1)} | ${f(Math.min(...existing), 1)} | ${f(Math.max(...existing), 1)} | ${f(median(existingCpu))} |`);
console.log(
  `| ceiling: minimal compiled Bun.serve + bun:sqlite, same directory | ${runs} | ${f(median(ceiling), 1)} | ${f(Math.min(...ceiling), 1)} | ${f(Math.max(...ceiling), 1)} | ${f(median(ceilingCpu))} |`,
);
console.log(
  `\nEarshot / ceiling, medians: existing directory ${f(median(existing) / median(ceiling), 1)}× wall, ${f(median(existingCpu) / Math.max(1, median(ceilingCpu)), 1)}× CPU.`,
);
console.log(`Ceiling idle RSS: ${ceilingRss.map((x) => `${f(x, 1)} MB`).join(", ")}`);
console.log(`\nIdle RSS after ${idleS} s (existing data directory, no model loaded): ${rss.map((x) => `${f(x, 1)} MB`).join(", ")}`);
console.log(`Idle RSS after ${idleS} s of a first start (fresh data directory): ${f(freshRss!, 1)} MB`);
