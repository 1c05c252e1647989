/**
 * @module test/helpers/process
 * Runs Earshot as a real process: `earshot serve` on a free port (from source with Bun, or a
 * compiled binary) and one-shot CLI commands. The test environment points at the fixture
 * models (DESIGN §2: `EARSHOT_MODELS_DIR=../shared/models/fixture`,
 * `EARSHOT_ASR_MODEL=whisper-tiny-random`); inherited `EARSHOT_*` variables are dropped so a
 * developer's shell cannot change what a test sees.
 */
import type { Subprocess } from "bun";
import { createServer } from "node:net";
import path from "node:path";
import { testDatabaseEnv } from "./db.ts";

/** The repository root (this file is `test/helpers/process.ts`). */
export const REPO_DIR = path.resolve(import.meta.dir, "..", "..");
/** The shared fixture models directory. */
import { FIXTURE_MODELS_DIR } from "./fixtures.ts";

export { FIXTURE_MODELS_DIR };

const HEALTH_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/** A running `earshot serve`. */
export interface RunningServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  baseUrl: string;
  port: number;
  proc: Subprocess;
  /** SIGTERM, then SIGKILL after 10 s; resolves once the process has exited. */
  stop(): Promise<void>;
  /** SIGKILL at once, as a crash would (await `proc.exited` to be sure it is gone). */
  kill9(): void;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
}

/** A free TCP port on the loopback interface (bind port 0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}

/** The command prefix: `[bun, src/cli.ts]` from source, or `[binary]`. */
function command(bin?: string[]): string[] {
  return bin && bin.length > 0 ? bin : [process.execPath, path.join(REPO_DIR, "src", "cli.ts")];
}

/** Parent environment without `EARSHOT_*`, plus the test defaults, plus `extra`. */
function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("EARSHOT_")) env[key] = value;
  }
  return {
    ...env,
    EARSHOT_MODELS_DIR: FIXTURE_MODELS_DIR,
    EARSHOT_ASR_MODEL: "whisper-tiny-random",
    EARSHOT_LOG_LEVEL: "warn",
    ...extra,
  };
}

function collect(stream: ReadableStream<Uint8Array> | undefined, sink: string[]): void {
  if (!stream) return;
  void (async () => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sink.push(decoder.decode(value, { stream: true }));
    }
  })().catch(() => undefined);
}

/**
 * Starts `earshot serve --port <free> --data <dataDir>` and waits until `GET /healthz` answers
 * 200.
 * @param opts.env extra environment (e.g. `EARSHOT_JOBS_PAUSED: "1"`); wins over the defaults
 * @param opts.bin command prefix of a compiled binary, e.g. `["dist/earshot"]`
 * @throws Error with the server's output when it exits early or is not healthy within 30 s
 */
export async function startServer(opts: { dataDir: string; env?: Record<string, string>; bin?: string[] }): Promise<RunningServer> {
  const port = await freePort();
  const chunks: string[] = [];
  const proc = Bun.spawn([...command(opts.bin), "serve", "--port", String(port), "--data", opts.dataDir], {
    cwd: REPO_DIR,
    // The data directory's own PostgreSQL database when the suite runs on PostgreSQL (test/helpers/db.ts).
    env: testEnv({ ...(await testDatabaseEnv(opts.dataDir)), ...opts.env }),
    stdout: "pipe",
    stderr: "pipe",
  });
  collect(proc.stdout, chunks);
  collect(proc.stderr, chunks);
  const output = () => chunks.join("");
  const baseUrl = `http://127.0.0.1:${port}`;
  const server: RunningServer = {
    baseUrl,
    port,
    proc,
    output,
    kill9: () => proc.kill("SIGKILL"),
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await proc.exited;
      clearTimeout(timer);
      // A 500 a test did not expect is explained only in the server's log: show those lines in the
      // test run's output (CI keeps nothing else of a server process).
      const unhandled = output()
        .split("\n")
        .filter((line) => line.includes('"msg":"unhandled error"'));
      if (unhandled.length) console.error(`earshot serve (port ${port}) logged unhandled errors:\n${unhandled.slice(0, 10).join("\n")}`);
    },
  };

  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let lastError = "";
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`earshot serve exited (${proc.exitCode ?? proc.signalCode}) before it was healthy:\n${output()}`);
    }
    try {
      const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return server;
      lastError = `GET /healthz answered ${res.status}`;
    } catch (err) {
      lastError = String(err);
    }
    await Bun.sleep(100);
  }
  proc.kill("SIGKILL");
  throw new Error(`earshot serve was not healthy within ${HEALTH_TIMEOUT_MS} ms (${lastError}):\n${output()}`);
}

/**
 * Runs one CLI command to completion, e.g. `runCli(["workspace", "create", "--name", "X",
 * "--json"], { dataDir })`. The data directory is given both as `--data` and as
 * `EARSHOT_DATA_DIR`. `opts.stdin` is written to the command's standard input.
 */
export async function runCli(
  args: string[],
  opts: { dataDir: string; bin?: string[]; env?: Record<string, string>; stdin?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([...command(opts.bin), ...args, "--data", opts.dataDir], {
    cwd: REPO_DIR,
    env: testEnv({ EARSHOT_DATA_DIR: opts.dataDir, ...(await testDatabaseEnv(opts.dataDir)), ...opts.env }),
    stdin: opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}
