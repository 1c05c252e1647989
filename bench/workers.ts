/**
 * @module bench/workers
 * N worker nodes draining a backlog of transcription jobs on PostgreSQL (issue 15, DESIGN §11):
 * a backlog of voice answers is submitted through the public intake API (in process, jobs
 * queued, nothing running them); then for N = 1, 2, 3 the backlog is made due again and N
 * `earshot serve --role worker` processes (the fixture Whisper model) drain it. Reports the
 * transcriptions per second and the time until every job (transcribe, then analyse) is done.
 * Prints figures; asserts nothing about time.
 *
 *   npx bun bench/workers.ts --database-url postgres://postgres@127.0.0.1:5432/postgres [--answers 60] [--nodes 1,2,3] [--db-name earshot_bench_workers]
 *
 * `--database-url` is an admin URL (CREATEDB): the bench creates `--db-name` (dropping an older one
 * of that name) and drops it at the end. `EARSHOT_BIN=dist/earshot` runs the compiled binary.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createAppDeps } from "../src/app-deps.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { createWorkspace } from "../src/modules/workspaces/service.ts";
import { makeSpeechWav } from "../test/helpers/audio.ts";
import { FIXTURE_MODELS_DIR, REPO_DIR, startServer, type RunningServer } from "../test/helpers/process.ts";

const { values: flags } = parseArgs({
  options: {
    "database-url": { type: "string" },
    "db-name": { type: "string", default: "earshot_bench_workers" },
    answers: { type: "string", default: "60" },
    nodes: { type: "string", default: "1,2,3" },
  },
});
const adminUrl = flags["database-url"] ?? process.env.EARSHOT_BENCH_DATABASE_URL;
if (!adminUrl) {
  process.stderr.write("bench/workers: give an admin PostgreSQL URL with --database-url (or EARSHOT_BENCH_DATABASE_URL)\n");
  process.exit(2);
}
const ANSWERS = Number(flags.answers);
const NODE_COUNTS = flags.nodes!.split(",").map(Number);
const dbName = flags["db-name"]!;
if (!/^[a-z_][a-z0-9_]*$/.test(dbName)) throw new Error("--db-name: lowercase letters, digits and _");
const bin = process.env.EARSHOT_BIN ? [path.resolve(REPO_DIR, process.env.EARSHOT_BIN)] : undefined;

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(adminUrl);
url.pathname = `/${dbName}`;
const databaseUrl = url.toString();

const root = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-bench-workers-"));
const config = loadConfig(
  {
    EARSHOT_DATABASE_URL: databaseUrl,
    EARSHOT_ALLOW_INSECURE_HTTP: "1",
    EARSHOT_PUBLIC_URL: "http://localhost",
    EARSHOT_LOG_LEVEL: "silent",
    EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0",
    EARSHOT_MODELS_DIR: FIXTURE_MODELS_DIR,
    EARSHOT_ASR_MODEL: "whisper-tiny-random",
  },
  { dataDir: path.join(root, "loader") },
);
const wiring = await createAppDeps(config, { log: createLogger("error"), webAssets: new Map() });
const { app, db } = wiring;
const ws = await createWorkspace(db, { name: "Bench", plan: "enterprise" });
async function call(method: string, p: string, body?: unknown, raw?: Uint8Array): Promise<any> {
  const headers: Record<string, string> = { authorization: `Bearer ${ws.api_key}`, "content-type": raw ? "audio/wav" : "application/json" };
  const res = await app.handle(
    new Request(`http://localhost${p}`, { method, headers, body: raw ? (raw as unknown as BodyInit) : body === undefined ? undefined : JSON.stringify(body) }),
  );
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// 1. The backlog: ANSWERS submitted responses with one voice answer each (3 s of speech).
const wav = new Uint8Array(fs.readFileSync(await makeSpeechWav("the checkout page keeps crashing on my phone", path.join(root, "answer.wav"), 0.3)));
const link = await call("POST", "/api/v1/links/", { name: "Backlog", questions: [{ prompt: "What should we fix?", type: "voice" }] });
const base = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
for (let i = 0; i < ANSWERS; i++) {
  const s = await call("POST", base, {});
  await call("POST", `${base}${s.session_id}/answers/${link.questions[0].uuid}/audio/`, undefined, wav);
  await call("POST", `${base}${s.session_id}/submit/`, {});
}
const FUTURE = "9999-01-01T00:00:00.000000Z";

/** Puts the backlog back: every transcription queued (not yet due), no analysis, answers pending. */
async function resetBacklog(): Promise<void> {
  await db.deleteFrom("jobs").where("kind", "=", "analyse").execute();
  await db.updateTable("jobs").set({ state: "queued", attempts: 0, lease_until: null, last_error: null, run_at: FUTURE }).execute();
  await db
    .updateTable("answers")
    .set({ transcription_status: "pending", transcription: null, text: null, analysis_status: "not_applicable", ai_insights: null })
    .execute();
  await db.updateTable("responses").set({ submitted_event_at: null }).execute();
}

const counts = async () => {
  const rows = await db
    .selectFrom("jobs")
    .select(["kind", "state", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy(["kind", "state"])
    .execute();
  const n = (kind: string, state: string) => Number(rows.find((r) => r.kind === kind && r.state === state)?.n ?? 0);
  return {
    transcribed: n("transcribe", "done"),
    analysed: n("analyse", "done"),
    failed: rows.filter((r) => r.state === "failed").reduce((a, r) => a + Number(r.n), 0),
  };
};

type Row = { nodes: number; transcribeS: number; allS: number; perS: number };
const results: Row[] = [];
for (const n of NODE_COUNTS) {
  await resetBacklog();
  const nodes: RunningServer[] = [];
  for (let i = 0; i < n; i++) {
    nodes.push(
      await startServer({
        dataDir: path.join(root, `node-${n}-${i}`),
        bin,
        env: { EARSHOT_DATABASE_URL: databaseUrl, EARSHOT_ROLE: "worker", EARSHOT_JOB_POLL_MS: "100" },
      }),
    );
  }
  // The inference workers load the model on their first job; warm each node alike by letting the
  // clock start only when the backlog becomes due.
  const t0 = performance.now();
  await db.updateTable("jobs").set({ run_at: "2000-01-01T00:00:00.000000Z" }).where("state", "=", "queued").execute();
  let transcribeS = 0;
  for (;;) {
    const c = await counts();
    if (!transcribeS && c.transcribed + c.failed >= ANSWERS) transcribeS = (performance.now() - t0) / 1000;
    if (c.transcribed + c.failed >= ANSWERS && c.analysed + c.failed >= ANSWERS) break;
    await Bun.sleep(50);
  }
  const allS = (performance.now() - t0) / 1000;
  const c = await counts();
  if (c.failed) process.stderr.write(`warning: ${c.failed} jobs failed with ${n} nodes\n`);
  await Promise.all(nodes.map((s) => s.stop()));
  results.push({ nodes: n, transcribeS, allS, perS: ANSWERS / transcribeS });
  process.stdout.write(
    `${n} worker node(s): ${ANSWERS} transcriptions in ${transcribeS.toFixed(1)} s (${(ANSWERS / transcribeS).toFixed(2)}/s); every job done in ${allS.toFixed(1)} s\n`,
  );
}

await wiring.close();
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.end();
fs.rmSync(root, { recursive: true, force: true });

const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" ");
process.stdout.write(`\n| worker nodes | transcriptions/s | ${ANSWERS} transcriptions | every job done |\n| --- | --- | --- | --- |\n`);
for (const r of results) process.stdout.write(`| ${r.nodes} | ${r.perS.toFixed(2)} | ${r.transcribeS.toFixed(1)} s | ${r.allS.toFixed(1)} s |\n`);
process.stdout.write(`\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), load average ${load}, ${new Date().toISOString()}\n`);
