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

const loadAtStart = loadavg().map((x) => x.toFixed(2)).join(" ");
const dirs: string[] = [];
const live = new Set<{ kill(signal?: number | NodeJS.Signals): void }>();
process.on("exit", () => {
  for (const p of live) p.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
process.once("SIGINT", () => process.exit(130));

const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("EARSHOT_")) env[k] = v;
Object.assign(env, { EARSHOT_LOG_LEVEL: "warn", EARSHOT_MODELS_DIR: FIXTURE_MODELS_DIR, EARSHOT_ASR_MODEL: "whisper-tiny-random" });

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** One start: ms from spawn to the first 200, and the RSS after `idleS` seconds of idling. */
async function startOnce(dataDir: string, measureRss: boolean): Promise<{ ms: number; rss: number | null }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/healthz`;
  const t0 = performance.now();
  const proc = Bun.spawn([bin, "serve", "--port", String(port), "--data", dataDir], { env, stdout: "ignore", stderr: "pipe" });
  live.add(proc);
  let ms = NaN;
  try {
    for (const deadline = t0 + 30_000; performance.now() < deadline; ) {
      if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode}): ${await new Response(proc.stderr).text()}`);
      const ok = await fetch(url).then((r) => r.status === 200, () => false);
      if (ok) {
        ms = performance.now() - t0;
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
    return { ms, rss };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    live.delete(proc);
  }
}

const fresh: number[] = [];
for (let i = 0; i < runs; i++) {
  const d = mkdtempSync(path.join(tmpdir(), "earshot-bench-start-"));
  dirs.push(d);
  fresh.push((await startOnce(d, false)).ms);
}
const existingDir = dirs[0]!;
const existing: number[] = [];
const rss: number[] = [];
for (let i = 0; i < runs; i++) {
  const r = await startOnce(existingDir, i < 3);
  existing.push(r.ms);
  if (r.rss !== null) rss.push(r.rss);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f = (x: number, d = 0) => x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
console.log(`\nEarshot start-up bench — ${new Date().toISOString()}, Bun ${Bun.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${path.relative(REPO_DIR, bin) || bin}`);
console.log(`Load average at start: ${loadAtStart}; after: ${loadavg().map((x) => x.toFixed(2)).join(" ")}.\n`);
console.log("| data directory | runs | exec → first 200 median ms | min ms | max ms |");
console.log("| --- | ---: | ---: | ---: | ---: |");
console.log(`| fresh (first start) | ${runs} | ${f(median(fresh), 1)} | ${f(Math.min(...fresh), 1)} | ${f(Math.max(...fresh), 1)} |`);
console.log(`| existing | ${runs} | ${f(median(existing), 1)} | ${f(Math.min(...existing), 1)} | ${f(Math.max(...existing), 1)} |`);
console.log(`\nIdle RSS after ${idleS} s (existing data directory, no model loaded): ${rss.map((x) => `${f(x, 1)} MB`).join(", ")}`);
