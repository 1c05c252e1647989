/**
 * @module scripts/test
 * `npm test`: the whole suite on a fresh machine, on both engines (DESIGN §11). Installs the
 * Debian packages the tests drive when they are missing (as root, with apt-get), builds the
 * whisper.cpp addon (scripts/build-whisper.ts, cached) and the
 * single executable once (so the binary and browser tests of both runs use the same
 * `dist/earshot`), starts one throw-away PostgreSQL cluster (`scripts/pg-cluster.ts`), and runs
 * `bun test` twice at the same time: plain (SQLite) and with `EARSHOT_TEST_DATABASE_URL` set to
 * the cluster (PostgreSQL). Each child's lines are printed as they come, prefixed with
 * `[sqlite]` / `[postgres]`. It ends with one line per engine and then the line CI reads,
 * `N passed, M failed[, K skipped]` (the sums), and exits non-zero when either run fails, when
 * a test skipped for a reason not on the allow-list (scripts/skip-check.ts; checked when no name
 * filter is given), or at once when a step before the runs fails (packages, build, cluster).
 *
 *   npm test                              both engines
 *   npm test -- --engine sqlite           one engine (also EARSHOT_TEST_ENGINE=sqlite|postgres|both)
 *   npm test -- --engine postgres test/x  further arguments go to `bun test`
 *
 * With `EARSHOT_TEST_DATABASE_URL` already set (an admin URL of an existing cluster), the
 * PostgreSQL run uses it and no cluster is started.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { startCluster, stopCluster, type PgCluster } from "./pg-cluster.ts";
import { parseJUnit, skipProblems, type TestCase } from "./skip-check.ts";
import { buildWhisperAddons } from "./build-whisper.ts";

const root = path.resolve(import.meta.dir, "..");
process.chdir(root);

type Engine = "sqlite" | "postgres";
const ENGINES: readonly Engine[] = ["sqlite", "postgres"];

/** Debian package → a file it installs, to tell whether it is present. */
const SYSTEM_PACKAGES: Record<string, string> = {
  chromium: "/usr/bin/chromium",
  "espeak-ng": "/usr/bin/espeak-ng",
  sox: "/usr/bin/sox",
  "opus-tools": "/usr/bin/opusenc",
  openssl: "/usr/bin/openssl",
  prometheus: "/usr/bin/promtool",
  // The whisper.cpp addon (scripts/build-whisper.ts) is compiled from source.
  cmake: "/usr/bin/cmake",
  "g++": "/usr/bin/g++",
  make: "/usr/bin/make",
};

function ensureSystemPackages(): void {
  const missing = Object.entries(SYSTEM_PACKAGES)
    .filter(([, file]) => !fs.existsSync(file))
    .map(([pkg]) => pkg);
  if (!missing.length) return;
  if (process.getuid?.() !== 0) {
    console.error(`Missing Debian packages: ${missing.join(" ")}. Install them: sudo apt-get install -y ${missing.join(" ")}`);
    process.exit(2);
  }
  console.log(`Installing Debian packages: ${missing.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  if (update.status !== 0) process.exit(update.status ?? 2);
  const r = spawnSync("apt-get", ["install", "-y", "-qq", ...missing], { stdio: "inherit", env });
  if (r.status !== 0) process.exit(r.status ?? 2);
}

function buildExecutable(): Record<string, string> {
  if (process.env.EARSHOT_SKIP_BUILD === "1" || !fs.existsSync("scripts/build.ts")) return {};
  console.log("Building dist/earshot …");
  const r = spawnSync(process.execPath, ["scripts/build.ts"], { stdio: "inherit" });
  if (r.status !== 0) {
    // Stop here: the runs would test a stale or missing binary, and CI must fail on this step.
    console.error("The build failed (npm run build): stopping before the tests.");
    process.exit(r.status ?? 1);
  }
  return { EARSHOT_BIN: path.join(root, "dist", "earshot") };
}

/** `--engine X` / `--engine=X` (removed from the arguments) or EARSHOT_TEST_ENGINE; default both. */
function selectEngines(argv: string[]): { engines: Engine[]; rest: string[] } {
  let choice = process.env.EARSHOT_TEST_ENGINE || "both";
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--engine") choice = argv[++i] ?? "";
    else if (a.startsWith("--engine=")) choice = a.slice("--engine=".length);
    else rest.push(a);
  }
  if (choice === "both") return { engines: [...ENGINES], rest };
  if (!ENGINES.includes(choice as Engine)) {
    console.error(`--engine must be sqlite, postgres or both (got "${choice}")`);
    process.exit(2);
  }
  return { engines: [choice as Engine], rest };
}

type Outcome = {
  engine: Engine;
  code: number;
  passed: number;
  failed: number;
  skipped: number;
  seconds: number;
  skipProblems: string[];
  failures: string[];
};

/** The JUnit reports of the runs (to read which tests skipped), removed at exit. */
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-test-report-"));

/** A name filter (`-t`, `--test-name-pattern`) reports the tests it leaves out as skipped. */
const filtersByName = (args: string[]) => args.some((a) => a === "-t" || a.startsWith("--test-name-pattern") || a.startsWith("-t="));

/**
 * The skipped tests that are not on the allow-list (scripts/skip-check.ts), from the run's JUnit
 * report; a missing report is a problem too (the run died before writing it).
 */
function checkSkips(engine: Engine, cases: TestCase[] | null, report: string, args: string[]): string[] {
  if (filtersByName(args)) return [];
  if (!cases) return [`no JUnit report from the ${engine} run (${report})`];
  return skipProblems(engine, cases);
}

/**
 * The failed tests of a run, each as "file:line name" and the first lines of its failure, so the
 * end of CI's log says what failed without a search through two interleaved runs' output.
 */
function failureLines(cases: TestCase[] | null): string[] {
  return (cases ?? [])
    .filter((c) => c.failure !== null)
    .map((c) => {
      const lines = (c.failure ?? "").split("\n").filter((l) => l.trim());
      const shown = lines.slice(0, 12).map((l) => `      ${l.slice(0, 300)}`);
      if (lines.length > 12) shown.push(`      … ${lines.length - 12} more line(s)`);
      return [`  ${c.file}:${c.line} ${c.name}`, ...shown].join("\n");
    });
}

/** Copies a child's stream to ours line by line with a prefix; keeps the last 4000 characters. */
async function pump(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream, prefix: string, keep: { tail: string }): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    pending += decoder.decode(r.value, { stream: true });
    const cut = pending.lastIndexOf("\n");
    if (cut < 0) continue;
    const lines = pending.slice(0, cut + 1);
    pending = pending.slice(cut + 1);
    out.write(lines.replace(/^(?=.)/gm, prefix));
    keep.tail = (keep.tail + lines).slice(-4000);
  }
  pending += decoder.decode();
  if (pending) {
    out.write(`${prefix}${pending}\n`);
    keep.tail = (keep.tail + pending).slice(-4000);
  }
}

const children = new Set<ReturnType<typeof Bun.spawn>>();

async function runSuite(engine: Engine, args: string[], env: Record<string, string | undefined>): Promise<Outcome> {
  const started = performance.now();
  const prefix = engines.length > 1 ? `[${engine}] ` : "";
  const report = path.join(reportDir, `${engine}.xml`);
  const child = Bun.spawn([process.execPath, "test", "--timeout", "120000", "--reporter=junit", `--reporter-outfile=${report}`, ...args], {
    env,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  children.add(child);
  const keep = { tail: "" };
  await Promise.all([pump(child.stdout, process.stdout, prefix, { tail: "" }), pump(child.stderr, process.stderr, prefix, keep)]);
  const code = await child.exited;
  children.delete(child);
  const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}\\s*$`, "m").exec(keep.tail)?.[1] ?? 0);
  const cases = fs.existsSync(report) ? parseJUnit(fs.readFileSync(report, "utf8")) : null;
  return {
    engine,
    code,
    passed: count("pass"),
    failed: count("fail"),
    skipped: count("skip"),
    seconds: (performance.now() - started) / 1000,
    skipProblems: checkSkips(engine, cases, report, args),
    failures: failureLines(cases),
  };
}

const summary = (o: { passed: number; failed: number; skipped: number }) =>
  `${o.passed} passed, ${o.failed} failed${o.skipped ? `, ${o.skipped} skipped` : ""}`;

const { engines, rest } = selectEngines(process.argv.slice(2));
let cluster: PgCluster | null = null;
let cleaned = false;
function cleanUp(): void {
  if (cleaned) return;
  cleaned = true;
  for (const child of children) child.kill("SIGTERM");
  if (cluster) stopCluster(cluster.dir);
  fs.rmSync(reportDir, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the test runs and the PostgreSQL cluster`);
    cleanUp();
    process.exit(130);
  });
}
process.once("exit", cleanUp);

const wallStart = performance.now();
ensureSystemPackages();
// The whisper.cpp engine's tests run from source too (EARSHOT_SKIP_BUILD=1): its addon is built
// (or taken from its cache) first; the binary's build does the same.
try {
  await buildWhisperAddons();
} catch (err) {
  console.error(`The whisper.cpp addon build failed: ${(err as Error).message}`);
  process.exit(1);
}
const baseEnv: Record<string, string | undefined> = { ...process.env, ...buildExecutable() };
delete baseEnv.EARSHOT_TEST_ENGINE;
let pgUrl = process.env.EARSHOT_TEST_DATABASE_URL || "";
if (engines.includes("postgres") && !pgUrl) {
  try {
    cluster = await startCluster();
    pgUrl = cluster.url;
    console.log(`PostgreSQL test cluster: ${pgUrl} (${cluster.dir})`);
  } catch (err) {
    console.error(`Could not start a PostgreSQL cluster: ${(err as Error).message}`);
    cleanUp();
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
}

let outcomes: Outcome[];
try {
  outcomes = await Promise.all(
    engines.map((engine) => {
      const env = { ...baseEnv };
      if (engine === "postgres") env.EARSHOT_TEST_DATABASE_URL = pgUrl;
      else delete env.EARSHOT_TEST_DATABASE_URL;
      return runSuite(engine, rest, env);
    }),
  );
} finally {
  cleanUp();
}
const total = { passed: 0, failed: 0, skipped: 0 };
for (const o of outcomes) {
  total.passed += o.passed;
  total.failed += o.failed;
  total.skipped += o.skipped;
  console.log(`${o.engine}: ${summary(o)} (${o.seconds.toFixed(0)} s, exit ${o.code})`);
}
for (const o of outcomes) {
  if (!o.failures.length) continue;
  console.log(`\nfailed on ${o.engine} (${o.failures.length}):`);
  for (const f of o.failures) console.log(f);
}
const problems = outcomes.flatMap((o) => o.skipProblems.map((p) => `[${o.engine}] ${p}`));
if (problems.length) {
  console.log(`\n${problems.length} test(s) skipped for a reason not on the allow-list (docs/testing.md "Skipped tests"):`);
  for (const p of problems) console.log(`  ${p}`);
}
console.log(`wall time: ${((performance.now() - wallStart) / 1000).toFixed(0)} s`);
console.log(summary(total));
const ok = outcomes.every((o) => o.code === 0 && o.passed > 0) && problems.length === 0;
process.exit(ok ? 0 : 1);
