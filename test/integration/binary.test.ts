/**
 * The single executable (DESIGN §1): `dist/earshot`, copied alone into an empty folder (no
 * node_modules anywhere above it), must start, carry its migrations and web assets, and
 * transcribe through the inference worker with the embedded ONNX Runtime, and with the embedded
 * whisper.cpp addon (issue 27).
 *
 * Uses `EARSHOT_BIN` when set (CI builds once and shares it with test/e2e); otherwise reuses
 * `dist/earshot` when it is newer than every source file, and runs `bun run build` when not.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrations } from "../../src/db/migrations/index.ts";
import { freePort } from "../helpers/process.ts";
import { FIXTURE_MODELS_DIR, FIXTURE_TRANSCRIPT } from "../helpers/fixtures.ts";
import { writeGgmlFixture } from "../helpers/ggml-fixture.ts";
import pkg from "../../package.json" with { type: "json" };

const REPO_DIR = path.resolve(import.meta.dir, "..", "..");
const DEFAULT_BIN = path.join(REPO_DIR, "dist", "earshot");
const WEBM_FIXTURE = path.join(REPO_DIR, "test", "fixtures", "audio", "hello-there.webm");
/** What decides the binary's content; a newer file means dist/earshot is stale. */
const BUILD_INPUTS = ["src", "web", "scripts/build.ts", "scripts/build-whisper.ts", "native/whisper/addon.cc", "package-lock.json"];
const START_TIMEOUT_MS = 20_000;
const TRANSCRIPTION_TIMEOUT_MS = 60_000;

function newestMtimeMs(target: string): number {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs
    .readdirSync(target)
    .filter((name) => !name.endsWith(".test.ts"))
    .reduce((newest, name) => Math.max(newest, newestMtimeMs(path.join(target, name))), stat.mtimeMs);
}

/** The binary under test: `EARSHOT_BIN`, or a fresh `dist/earshot` (built when stale). */
function ensureBinary(): string {
  if (process.env.EARSHOT_BIN) return path.resolve(process.env.EARSHOT_BIN);
  const builtAt = fs.statSync(DEFAULT_BIN, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sourcesAt = Math.max(...BUILD_INPUTS.map((p) => newestMtimeMs(path.join(REPO_DIR, p))));
  if (builtAt > sourcesAt) return DEFAULT_BIN;
  const build = Bun.spawnSync([process.execPath, path.join(REPO_DIR, "scripts", "build.ts")], { cwd: REPO_DIR });
  if (build.exitCode !== 0) throw new Error(`bun run build failed:\n${build.stdout}\n${build.stderr}`);
  return DEFAULT_BIN;
}

/** Only what a bare host has, plus the fixture models; no EARSHOT_* from the caller's shell. */
const METRICS_TOKEN = "binary-metrics-token-0123456789";

function bareEnv(): Record<string, string> {
  const keep = ["PATH", "HOME", "TMPDIR", "LANG"];
  const env: Record<string, string> = {};
  for (const key of keep) if (process.env[key]) env[key] = process.env[key]!;
  return {
    ...env,
    EARSHOT_MODELS_DIR: FIXTURE_MODELS_DIR,
    EARSHOT_ASR_MODEL: "whisper-tiny-random",
    EARSHOT_LOG_LEVEL: "warn",
    EARSHOT_METRICS_TOKEN: METRICS_TOKEN,
  };
}

let dir = "";
let server: Subprocess | null = null;
const serverOutput: string[] = [];
let baseUrl = "";
let startMs = 0;

/** Runs `./earshot <args>` in the scratch folder. */
function earshot(args: string[]): { code: number; stdout: string; stderr: string } {
  const result = Bun.spawnSync(["./earshot", ...args], { cwd: dir, env: bareEnv() });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

async function startServer(): Promise<void> {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  server = Bun.spawn(["./earshot", "serve", "--port", String(port), "--data", "./data"], {
    cwd: dir,
    env: bareEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  for (const stream of [server.stdout, server.stderr] as ReadableStream<Uint8Array>[]) {
    void (async () => {
      const reader = stream.getReader();
      const decoder = new TextDecoder();
      for (let r = await reader.read(); !r.done; r = await reader.read()) serverOutput.push(decoder.decode(r.value));
    })().catch(() => undefined);
  }
  while (performance.now() - started < START_TIMEOUT_MS) {
    if (server.exitCode !== null) throw new Error(`earshot serve exited ${server.exitCode}:\n${serverOutput.join("")}`);
    const res = await fetch(`${baseUrl}/healthz`).catch(() => null);
    if (res?.status === 200) {
      startMs = performance.now() - started;
      return;
    }
    await Bun.sleep(5);
  }
  throw new Error(`earshot serve did not answer within ${START_TIMEOUT_MS} ms:\n${serverOutput.join("")}`);
}

// Building takes a few seconds (more on a cold cache); the default hook timeout is too short.
beforeAll(() => {
  const bin = ensureBinary();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-binary-"));
  fs.copyFileSync(bin, path.join(dir, "earshot"));
  fs.chmodSync(path.join(dir, "earshot"), 0o755);
}, 300_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await server.exited;
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("dist/earshot alone in an empty folder", () => {
  test("the folder holds nothing but the binary, and no node_modules is reachable", () => {
    expect(fs.readdirSync(dir)).toEqual(["earshot"]);
    for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
      expect(fs.existsSync(path.join(d, "node_modules"))).toBe(false);
    }
  });

  test("migrate applies the embedded migrations, all of them", () => {
    const run = earshot(["migrate", "--data", "./migrated"]);
    expect(run.code, run.stderr).toBe(0);
    const db = new Database(path.join(dir, "migrated", "earshot.db"), { readonly: true });
    const applied = db.query<{ name: string }, []>("SELECT name FROM kysely_migration ORDER BY name").all();
    db.close();
    expect(applied.map((row) => row.name)).toEqual(Object.keys(migrations).sort());
  });

  test("workspace create --json prints exactly one JSON object", () => {
    const run = earshot(["workspace", "create", "--name", "Binary check", "--json", "--data", "./data"]);
    expect(run.code, run.stderr).toBe(0);
    const created = JSON.parse(run.stdout.trim()) as Record<string, string>;
    expect(Object.keys(created).sort()).toEqual(["api_key", "token_uuid", "workspace_slug", "workspace_uuid"]);
    expect(created.api_key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
  });

  test(
    "serve answers: problem+json 401 without a key, and the embedded intake assets",
    async () => {
      await startServer();
      console.log(`binary: start to first /healthz 200 in ${startMs.toFixed(0)} ms`);

      const res = await fetch(`${baseUrl}/api/v1/workspace/`);
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(((await res.json()) as { status: number }).status).toBe(401);

      // docs/intake.md "Pages": the page's only script and stylesheet, served from the binary.
      for (const [asset, type] of [
        ["intake.js", "javascript"],
        ["intake.css", "text/css"],
      ] as const) {
        const res = await fetch(`${baseUrl}/assets/${asset}`);
        expect(res.status, `/assets/${asset}`).toBe(200);
        expect(res.headers.get("content-type")).toContain(type);
        expect((await res.text()).length).toBeGreaterThan(100);
      }
    },
    START_TIMEOUT_MS + 5_000,
  );

  test("the version is embedded: --version, /healthz/live; /metrics scrapes clean (prom-client bundled, process metrics loaded on demand)", async () => {
    expect(earshot(["--version"])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
    expect(await (await fetch(`${baseUrl}/healthz/live`)).json()).toEqual({ status: "ok", version: pkg.version });
    const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("process_resident_memory_bytes");
    expect(text).toContain('earshot_http_request_duration_seconds_count{route="/healthz/live",method="GET",status_class="2xx"} 1');
    if (fs.existsSync("/usr/bin/promtool")) {
      const checked = Bun.spawnSync(["promtool", "check", "metrics"], { stdin: new TextEncoder().encode(text), stdout: "pipe", stderr: "pipe" });
      expect(checked.exitCode, checked.stdout.toString()).toBe(0);
    }
  });

  test(
    "a recorded answer is transcribed by the worker (WebM/Opus → Whisper in ONNX Runtime)",
    async () => {
      expect(server).not.toBeNull();
      const keyRun = earshot(["workspace", "create", "--name", "Transcription check", "--json", "--data", "./data"]);
      const { api_key: apiKey, workspace_slug: workspaceSlug } = JSON.parse(keyRun.stdout.trim()) as Record<string, string>;

      const created = await fetch(`${baseUrl}/api/v1/links/`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Binary voice", questions: [{ prompt: "How was your visit?", type: "voice" }] }),
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const link = (await created.json()) as { slug: string; questions: { uuid: string }[] };
      const questionUuid = link.questions[0]!.uuid;
      const intake = `${baseUrl}/api/v1/intake/${workspaceSlug}/${link.slug}/`;

      const post = (url: string, body: BodyInit, type = "application/json") => fetch(url, { method: "POST", headers: { "content-type": type }, body });
      const session = (await (await post(`${intake}sessions/`, "{}")).json()) as { session_id: string; response_uuid: string };
      const sessionUrl = `${intake}sessions/${session.session_id}/`;
      const upload = await post(`${sessionUrl}answers/${questionUuid}/audio/`, Bun.file(WEBM_FIXTURE), "audio/webm");
      expect(upload.status, await upload.clone().text()).toBe(200);
      // Submitting queues the transcription job (docs/intake.md); the worker then runs Whisper.
      const submitted = await post(`${sessionUrl}submit/`, "{}");
      expect(submitted.status, await submitted.clone().text()).toBe(200);

      type Answer = { question_uuid: string; transcription_status: string; transcription: string | null };
      const deadline = Date.now() + TRANSCRIPTION_TIMEOUT_MS;
      let answer: Answer | undefined;
      while (Date.now() < deadline) {
        const res = await fetch(`${baseUrl}/api/v1/responses/${session.response_uuid}/`, { headers: { authorization: `Bearer ${apiKey}` } });
        expect(res.status).toBe(200);
        answer = ((await res.json()) as { answers: Answer[] }).answers.find((a) => a.question_uuid === questionUuid);
        if (answer && answer.transcription_status !== "pending" && answer.transcription_status !== "processing") break;
        await Bun.sleep(100);
      }
      expect(answer?.transcription_status, serverOutput.join("")).toBe("completed");
      expect(answer?.transcription?.trim()).toBe(FIXTURE_TRANSCRIPT);
    },
    TRANSCRIPTION_TIMEOUT_MS + 10_000,
  );

  test("the whisper.cpp engine runs from the binary alone: its embedded addon transcribes with a ggml model", () => {
    // A models folder with ONLY the ggml file: transformers.js would find nothing to load.
    const models = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-binary-ggml-"));
    try {
      fs.mkdirSync(path.join(models, "ggml-en-random"));
      writeGgmlFixture(path.join(models, "ggml-en-random", "ggml-model.bin"));
      const env = { ...bareEnv(), EARSHOT_MODELS_DIR: models, EARSHOT_ASR_MODEL: "ggml-en-random" };
      const before = fs.readdirSync(dir).sort();
      for (const engine of ["whispercpp", "auto"]) {
        const run = Bun.spawnSync(["./earshot", "transcribe", WEBM_FIXTURE, "--json"], { cwd: dir, env: { ...env, EARSHOT_ASR_ENGINE: engine } });
        expect(run.exitCode, run.stderr.toString()).toBe(0);
        expect((JSON.parse(run.stdout.toString()) as { text: string }).text).toBe(FIXTURE_TRANSCRIPT);
      }
      // Nothing was extracted beside the binary (Bun extracts the addon to TMPDIR).
      expect(fs.readdirSync(dir).sort()).toEqual(before);
    } finally {
      fs.rmSync(models, { recursive: true, force: true });
    }
  });
});
