/**
 * "The HTTP server stays responsive while the worker is busy" (issue #5), as behaviour, not as a
 * latency figure (that one is measured by bench/ai-responsive.ts, docs/performance.md): a real
 * `earshot serve` transcribes a 90 s espeak-ng recording through the inference worker while this
 * test sends bursts of GETs — `/healthz` and the public intake API's `GET {base}` (a database
 * read). A burst counts when the answer was `processing` before its first GET was sent and after
 * its last was answered, and the inference threads (Bun `Worker` threads) used CPU in between, as
 * the kernel accounts it: the HTTP thread answered while inference was running. The test requires
 * many such bursts; inference moved onto the HTTP thread would leave none (no worker CPU, and no
 * answer while a synchronous step runs).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";
import { cpuTicksByThreadName, mainThreadTicks } from "../helpers/thread-cpu.ts";

const SPEECH_S = 90;
/** GETs per burst. */
const BURST = 4;
/** Bursts answered while inference demonstrably ran that the test requires. */
const MIN_BURSTS = 10;
const SENTENCES = [
  "The checkout page was slow this morning and the payment form timed out twice.",
  "I would like an export button on the reports page so that I can share numbers with my team.",
  "Support answered quickly and the new dashboard is much easier to read than the old one.",
];

const dataDir = mkdtempSync(path.join(tmpdir(), "earshot-responsive-"));
let server: RunningServer;
let apiKey = "";
let wsSlug = "";

/** About `seconds` of espeak-ng speech as a WAV file (22.05 kHz mono 16-bit). */
function longSpeech(seconds: number): Blob {
  const file = path.join(dataDir, "speech.wav");
  const wordsPerS = 160 / 60;
  const words: string[] = [];
  for (let i = 0; words.length < seconds * wordsPerS; i++) words.push(...SENTENCES[i % SENTENCES.length]!.split(" "));
  const run = Bun.spawnSync(["espeak-ng", "-s", "160", "-w", file, words.join(" ")]);
  if (run.exitCode !== 0) throw new Error(`espeak-ng failed: ${run.stderr}`);
  return Bun.file(file);
}

/** CPU ticks of the server's Bun Worker threads (the inference worker; SQLite's checkpoint worker does not start on so few writes). */
const workerTicks = (pid: number) => cpuTicksByThreadName(pid).get("Worker") ?? 0;

beforeAll(async () => {
  const created = await runCli(["workspace", "create", "--name", "Busy", "--slug", "busy", "--json"], { dataDir });
  ({ api_key: apiKey, workspace_slug: wsSlug } = JSON.parse(created.stdout));
  server = await startServer({ dataDir });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the HTTP thread answers requests while the inference worker is transcribing", async () => {
  const pid = server.proc.pid;
  const auth = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  const link = (await (
    await fetch(`${server.baseUrl}/api/v1/links/`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        name: "Busy",
        slug: "busy-link",
        questions: [{ prompt: "Tell us everything", type: "voice", configuration: { max_duration: 600 } }],
      }),
    })
  ).json()) as { questions: { uuid: string }[] };
  const base = `${server.baseUrl}/api/v1/intake/${wsSlug}/busy-link/`;
  const session = (await (await fetch(`${base}sessions/`, { method: "POST", headers: auth, body: "{}" })).json()) as { session_id: string };
  const questionUuid = link.questions[0]!.uuid;
  const upload = await fetch(`${base}sessions/${session.session_id}/answers/${questionUuid}/audio/`, {
    method: "POST",
    headers: { "content-type": "audio/wav" },
    body: longSpeech(SPEECH_S),
  });
  expect(upload.status).toBe(200);
  expect((await fetch(`${base}sessions/${session.session_id}/submit/`, { method: "POST", headers: auth, body: "{}" })).status).toBe(200);

  const statusOf = async (): Promise<string> => {
    const s = (await (await fetch(`${base}sessions/${session.session_id}/`)).json()) as { answers: Record<string, { transcription_status: string }> };
    return s.answers[questionUuid]!.transcription_status;
  };
  let bursts = 0;
  let status = await statusOf();
  let firstProcessing: { worker: number; main: number } | null = null;
  let lastProcessing: { worker: number; main: number } | null = null;
  const deadline = Date.now() + 150_000;
  while (status !== "completed" && status !== "failed" && Date.now() < deadline) {
    const before = status;
    const workerBefore = workerTicks(pid);
    for (const url of [`${server.baseUrl}/healthz`, base, `${server.baseUrl}/healthz`, base].slice(0, BURST)) {
      const res = await fetch(url);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    const workerAfter = workerTicks(pid);
    status = await statusOf();
    // A pause between bursts: the test shows that requests are answered, not how many fit.
    await Bun.sleep(10);
    if (before === "processing" && status === "processing") {
      if (workerAfter > workerBefore) bursts++;
      firstProcessing ??= { worker: workerBefore, main: mainThreadTicks(pid) };
      lastProcessing = { worker: workerAfter, main: mainThreadTicks(pid) };
    }
  }
  expect(status).toBe("completed");
  expect(firstProcessing).not.toBeNull();
  // Bun names a Worker's thread "Worker" (and ONNX Runtime's threads inherit it): if that changes,
  // say so rather than report no burst.
  if (workerTicks(pid) === 0) throw new Error(`no thread named "Worker" in the server: ${[...cpuTicksByThreadName(pid).keys()].join(", ")}`);
  const workerCpu = lastProcessing!.worker - firstProcessing!.worker;
  const mainCpu = lastProcessing!.main - firstProcessing!.main;
  console.log(`bursts of ${BURST} GETs answered while the worker computed: ${bursts}; CPU meanwhile: worker ${workerCpu} ticks, HTTP thread ${mainCpu} ticks`);
  expect(bursts).toBeGreaterThanOrEqual(MIN_BURSTS);
}, 180_000);
