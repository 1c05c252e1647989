/**
 * @module bench/ai-responsive
 * Latency of the HTTP server's answers while the inference worker transcribes (issue #5's
 * figure; the behaviour itself is tested by test/integration/ai-responsive.test.ts). A real
 * `earshot serve` (staged fixture model by default) transcribes about 90 s of espeak-ng speech
 * while this script sends back-to-back GETs — `/healthz` and the public intake API's `GET {base}`
 * (a database read) — and reports p50 / p99 / max of those answered while the answer was
 * `processing`, with the load average. Prints figures; asserts nothing about time.
 *
 *   npx bun bench/ai-responsive.ts [--speech 90] [--runs 3] [--bin dist/earshot]
 *
 * The figure is for a quiet machine: another suite or bench running on the same cores moves it
 * (docs/performance.md).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { runCli, startServer } from "../test/helpers/process.ts";

const { values: flags } = parseArgs({
  options: {
    speech: { type: "string", default: "90" },
    runs: { type: "string", default: "3" },
    bin: { type: "string" },
  },
});
const SENTENCES = [
  "The checkout page was slow this morning and the payment form timed out twice.",
  "I would like an export button on the reports page so that I can share numbers with my team.",
  "Support answered quickly and the new dashboard is much easier to read than the old one.",
];

/** About `seconds` of espeak-ng speech as a WAV file in `dir`. */
function longSpeech(dir: string, seconds: number): Blob {
  const file = path.join(dir, "speech.wav");
  const words: string[] = [];
  for (let i = 0; words.length < (seconds * 160) / 60; i++) words.push(...SENTENCES[i % SENTENCES.length]!.split(" "));
  const run = Bun.spawnSync(["espeak-ng", "-s", "160", "-w", file, words.join(" ")]);
  if (run.exitCode !== 0) throw new Error(`espeak-ng failed: ${run.stderr}`);
  return Bun.file(file);
}

const percentile = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** One run: a fresh data directory and server; the latencies (ms) of GETs answered while the answer was `processing`. */
async function run(speechS: number): Promise<number[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "earshot-bench-responsive-"));
  const bin = flags.bin ? [path.resolve(flags.bin)] : undefined;
  const { api_key: apiKey, workspace_slug: slug } = JSON.parse((await runCli(["workspace", "create", "--name", "Busy", "--json"], { dataDir, bin })).stdout);
  const server = await startServer({ dataDir, bin });
  try {
    const auth = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
    const link = await (
      await fetch(`${server.baseUrl}/api/v1/links/`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ name: "Busy", slug: "busy-link", questions: [{ prompt: "Tell us", type: "voice", configuration: { max_duration: 600 } }] }),
      })
    ).json();
    const base = `${server.baseUrl}/api/v1/intake/${slug}/busy-link/`;
    const session = await (await fetch(`${base}sessions/`, { method: "POST", headers: auth, body: "{}" })).json();
    const question = link.questions[0].uuid;
    const upload = await fetch(`${base}sessions/${session.session_id}/answers/${question}/audio/`, {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: longSpeech(dataDir, speechS),
    });
    if (upload.status !== 200) throw new Error(`upload answered ${upload.status}`);
    await fetch(`${base}sessions/${session.session_id}/submit/`, { method: "POST", headers: auth, body: "{}" });
    const statusOf = async () => (await (await fetch(`${base}sessions/${session.session_id}/`)).json()).answers[question].transcription_status as string;
    const busy: number[] = [];
    let status = await statusOf();
    const deadline = Date.now() + 300_000;
    while (status !== "completed" && status !== "failed" && Date.now() < deadline) {
      for (const url of [`${server.baseUrl}/healthz`, base, `${server.baseUrl}/healthz`, base]) {
        const started = performance.now();
        await (await fetch(url)).arrayBuffer();
        if (status === "processing") busy.push(performance.now() - started);
      }
      status = await statusOf();
    }
    if (status !== "completed") throw new Error(`transcription ended ${status}`);
    return busy;
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const speechS = Number(flags.speech);
console.log(`GETs answered while transcribing ${speechS} s of speech (${os.cpus().length} cores)`);
for (let i = 1; i <= Number(flags.runs); i++) {
  const load = os.loadavg()[0]!.toFixed(1);
  const sorted = (await run(speechS)).sort((a, b) => a - b);
  if (!sorted.length) {
    console.log(`run ${i}: no GET answered while processing (load ${load})`);
    continue;
  }
  console.log(
    `run ${i}: n=${sorted.length} p50=${percentile(sorted, 50).toFixed(1)} ms p99=${percentile(sorted, 99).toFixed(1)} ms max=${sorted.at(-1)!.toFixed(1)} ms (load average ${load})`,
  );
}
