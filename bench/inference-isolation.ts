/**
 * @module bench/inference-isolation
 * What running inference in a child process instead of the worker thread would cost (issue 9
 * item 1; docs/decisions/inference-isolation.md): start-up to the first transcript, per-job
 * latency, and resident memory, for the same WebM/Opus recording through
 *   - "thread": the real `createInferenceClient` (a Bun Worker in this process), and
 *   - "process": a child `bun` process running the same decode + Whisper code
 *     (`src/ai/audio.ts`, `src/ai/asr.ts`), talking over Bun's IPC channel.
 * Also shows what each does when the inference side dies abruptly (`process.abort()` inside it),
 * and with `--worst-wav` the memory one job takes for the largest WAV a 600 s question accepts
 * (64 MiB of 8-bit samples at 192 kHz, 349.5 s). Prints figures; asserts nothing.
 *
 *   npx bun bench/inference-isolation.ts [--models-dir ../shared/models/fixture] [--model whisper-tiny-random] [--runs 20] [--first thread|process]
 *   npx bun bench/inference-isolation.ts --child …   (internal: the child process's entry)
 */
import "../src/runtime/preload.ts";
import path from "node:path";
import { parseArgs } from "node:util";
import { createAsr } from "../src/ai/asr.ts";
import { decodeAudio } from "../src/ai/audio.ts";
import { pcm8Wav } from "../test/helpers/audio-fixtures.ts";
import { createInferenceClient } from "../src/ai/inference-client.ts";
import { FIXTURE_MODELS_DIR, WEBM_FIXTURE_PATH } from "../test/helpers/fixtures.ts";

const { values: flags } = parseArgs({
  options: {
    "models-dir": { type: "string", default: FIXTURE_MODELS_DIR },
    model: { type: "string", default: "whisper-tiny-random" },
    runs: { type: "string", default: "20" },
    child: { type: "boolean", default: false },
    first: { type: "string", default: "thread" },
    "worst-wav": { type: "boolean", default: false },
  },
});

type Request = { id: number; audio: Uint8Array } | { id: number; abort: true };
type Reply = { id: number; text?: string; error?: string };

/** The child: one request at a time, like the worker. */
function child(): void {
  const asr = createAsr(flags["models-dir"]!, flags.model!, 1);
  process.on("message", async (message: Request) => {
    if ("abort" in message) process.abort();
    try {
      const decoded = await decodeAudio(message.audio);
      const { text } = await asr.transcribe(decoded.pcm);
      process.send!({ id: message.id, text } satisfies Reply);
    } catch (err) {
      process.send!({ id: message.id, error: String(err) } satisfies Reply);
    }
  });
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

/** RSS of a pid in bytes, from /proc (VmRSS). */
async function rssOf(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

async function main(): Promise<void> {
  const runs = Number(flags.runs);
  const webm = new Uint8Array(await Bun.file(WEBM_FIXTURE_PATH).arrayBuffer());
  const baseRss = await rssOf(process.pid);

  let thread = { startMs: 0, times: [] as number[], rss: 0 };
  let proc = { startMs: 0, times: [] as number[], rss: 0, ended: "" };
  // Thread: the real client.
  const measureThread = async () => {
    let t0 = performance.now();
    const client = createInferenceClient({ modelsDir: flags["models-dir"]!, asrModel: flags.model!, sentimentModel: "none", threads: 1 });
    await client.transcribe(webm);
    const threadStartMs = performance.now() - t0;
    const threadTimes: number[] = [];
    for (let i = 0; i < runs; i++) {
      t0 = performance.now();
      await client.transcribe(webm);
      threadTimes.push(performance.now() - t0);
    }
    const threadRss = (await rssOf(process.pid)) - baseRss;
    await client.close();
    thread = { startMs: threadStartMs, times: threadTimes, rss: threadRss };
  };
  // Process: a child bun over IPC.
  const measureProcess = async () => {
    const pending = new Map<number, (r: Reply) => void>();
    let t0 = performance.now();
    const child = Bun.spawn([process.execPath, import.meta.path, "--child", "--models-dir", flags["models-dir"]!, "--model", flags.model!], {
      ipc: (message: Reply) => pending.get(message.id)?.(message),
      serialization: "advanced", // structured clone: the audio goes as bytes, not JSON
      stdout: "inherit",
      stderr: "ignore",
    });
    let nextId = 1;
    const ask = (audio: Uint8Array) =>
      new Promise<Reply>((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        child.send({ id, audio });
      });
    await ask(webm);
    const processStartMs = performance.now() - t0;
    const processTimes: number[] = [];
    for (let i = 0; i < runs; i++) {
      t0 = performance.now();
      await ask(webm);
      processTimes.push(performance.now() - t0);
    }
    const childRss = await rssOf(child.pid);
    // Crash isolation: the child aborts; this process carries on and could start another.
    child.send({ id: nextId++, abort: true });
    const exitCode = await child.exited;
    const ended = `exit ${exitCode}, signal ${child.signalCode}`;
    proc = { startMs: processStartMs, times: processTimes, rss: childRss, ended };
  };
  if (flags.first === "process") {
    await measureProcess();
    await measureThread();
  } else {
    await measureThread();
    await measureProcess();
  }
  const row = (name: string, start: number, times: number[], rss: string) =>
    `| ${name} | ${Math.round(start)} ms | ${median(times).toFixed(1)} ms | ${p95(times).toFixed(1)} ms | ${rss} |`;
  console.log(`fixture WebM/Opus 1.5 s, ${runs} runs, model ${flags.model}`);
  console.log("| inference in | start-up to first transcript | per job (median) | per job (p95) | memory |");
  console.log("| --- | --- | --- | --- | --- |");
  console.log(row("worker thread", thread.startMs, thread.times, `+${mb(thread.rss)} MB in the server process`));
  console.log(row("child process", proc.startMs, proc.times, `${mb(proc.rss)} MB child RSS (separate process)`));
  console.log(`child abort(): the child ended (${proc.ended}); this process carries on and could start another`);
}

/** Peak RSS growth while decoding the worst WAV a 600 s question accepts. */
async function worstWav(): Promise<void> {
  const wav = pcm8Wav(192_000, 64 * 1024 * 1024 - 44);
  for (let i = 44; i < wav.length; i++) wav[i] = 128 + ((i * 7) % 50); // not silence
  Bun.gc(true);
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  const decoded = await decodeAudio(wav, { maxDurationS: 602 });
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  console.log(
    `worst WAV (64 MiB, 8-bit, 192 kHz, ${decoded.durationS.toFixed(1)} s): decoded in ${Math.round(performance.now() - t0)} ms, peak RSS +${mb(peak - before)} MB over ${mb(before)} MB`,
  );
}

if (flags.child) child();
else if (flags["worst-wav"]) await worstWav();
else await main();
