/**
 * @module bench/asr-tuning
 * The transformers.js path's tuning choices, measured in one process, variants alternating, N rounds
 * (docs/decisions/asr-transformers-tuning.md): ONNX Runtime's `session.disable_quant_qdq` on and
 * off, fp32 vs q8 per model part (encoder, decoder), and long recordings cut by transformers.js'
 * overlapping chunks (30 s, 5 s stride) vs windows moved on by Whisper's timestamps
 * (src/ai/asr-windows.ts), and the decoder's cached steps without the encoder key/value copies
 * (src/ai/asr-kv-cache.ts). Uses the side-by-side bench's models and clips (`--work`, made by
 * `bench/asr.ts --side-by-side`). Prints medians (ms) with the load average; asserts nothing.
 *
 *   npx bun bench/asr-tuning.ts [--work /tmp/earshot-asr-bench] [--size tiny] [--threads 1] [--rounds 3]
 */
import "../src/runtime/preload.ts";
import { mkdirSync, readFileSync, symlinkSync, existsSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { AutomaticSpeechRecognitionPipeline } from "@huggingface/transformers";
import { skipRepeatedEncoderCache } from "../src/ai/asr-kv-cache.ts";
import { transcribeWindows, type WindowOutput } from "../src/ai/asr-windows.ts";
import { decodeAudio } from "../src/ai/audio.ts";

const { values: o } = parseArgs({
  options: {
    work: { type: "string", default: path.join(os.tmpdir(), "earshot-asr-bench") },
    size: { type: "string", default: "tiny" },
    threads: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
  },
});
const modelsDir = path.join(path.resolve(o.work!), "models");
const size = o.size!;
const threads = Number(o.threads);

/** A model folder holding both the fp32 and the 8-bit files, so that dtype can be chosen per part. */
function mixedFolder(): string {
  const id = `whisper-${size}.en-rand-mixed`;
  const dir = path.join(modelsDir, id);
  if (existsSync(dir)) return id;
  mkdirSync(path.join(dir, "onnx"), { recursive: true });
  for (const from of [`whisper-${size}.en-rand-fp32`, `whisper-${size}.en-rand-q8`]) {
    for (const f of readdirSync(path.join(modelsDir, from)))
      if (f !== "onnx" && !existsSync(path.join(dir, f))) symlinkSync(path.join(modelsDir, from, f), path.join(dir, f));
    for (const f of readdirSync(path.join(modelsDir, from, "onnx"))) symlinkSync(path.join(modelsDir, from, "onnx", f), path.join(dir, "onnx", f));
  }
  return id;
}

type Dtype = "fp32" | "q8";
async function load(encoder: Dtype, decoder: Dtype, qdqOff: boolean, intraOp = threads): Promise<AutomaticSpeechRecognitionPipeline> {
  const { env, pipeline } = await import("@huggingface/transformers");
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = modelsDir + path.sep;
  return pipeline("automatic-speech-recognition", mixedFolder(), {
    dtype: { encoder_model: encoder, decoder_model_merged: decoder },
    session_options: { intraOpNumThreads: intraOp, interOpNumThreads: 1, ...(qdqOff ? { extra: { session: { disable_quant_qdq: "1" } } } : {}) },
  });
}

const clip = async (s: number) => (await decodeAudio(new Uint8Array(readFileSync(path.join(path.resolve(o.work!), "audio", `speech-${s}s.wav`))))).pcm;
const pcm30 = await clip(30);
const pcm120 = await clip(120);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** Wall and CPU (all threads of this process: nothing else runs in it) ms of `f`. */
const time = async (f: () => Promise<unknown>) => {
  const [t, c] = [performance.now(), cpuMs()];
  await f();
  return { wall: performance.now() - t, cpu: cpuMs() - c };
};

const variants: { name: string; pipe: AutomaticSpeechRecognitionPipeline }[] = [];
for (const [enc, dec, qdqOff] of [
  ["q8", "q8", false],
  ["q8", "q8", true],
  ["fp32", "fp32", false],
  ["fp32", "q8", true],
  ["q8", "fp32", false],
] as [Dtype, Dtype, boolean][]) {
  const pipe = await load(enc, dec, qdqOff);
  await pipe(pcm30.subarray(0, 16000 * 5)); // warm-up
  variants.push({ name: `encoder ${enc}, decoder ${dec}${qdqOff ? ", disable_quant_qdq" : ""}`, pipe });
}
// The shipped setting: plus the decoder's cached steps not copying the encoder's key/values out.
{
  const pipe = await load("q8", "q8", true);
  skipRepeatedEncoderCache(pipe);
  await pipe(pcm30.subarray(0, 16000 * 5));
  variants.push({ name: "encoder q8, decoder q8, disable_quant_qdq, no encoder key/value copies", pipe });
}
// The shipped setting with one more intra-op thread: is "all cores when idle" worth it (docs/decisions/asr-threads.md)?
{
  const pipe = await load("q8", "q8", true, threads + 1);
  await pipe(pcm30.subarray(0, 16000 * 5));
  variants.push({ name: `encoder q8, decoder q8, disable_quant_qdq, ${threads + 1} threads`, pipe });
}
const results = new Map<string, { wall: number; cpu: number }[]>();
const record = (name: string, m: { wall: number; cpu: number }) => (results.get(name) ?? results.set(name, []).get(name)!).push(m);
const loads: string[] = [];
for (let r = 0; r < Number(o.rounds); r++) {
  loads.push(os.loadavg()[0]!.toFixed(1));
  for (const v of variants) record(v.name, await time(() => v.pipe(pcm30, { return_timestamps: true })));
  // Windowing, on the shipped dtype (q8, disable_quant_qdq).
  const shipped = variants[1]!.pipe;
  record("120 s: 30 s chunks, 5 s stride (6 windows)", await time(() => shipped(pcm120, { return_timestamps: true, chunk_length_s: 30, stride_length_s: 5 })));
  record(
    "120 s: windows moved on by timestamps",
    await time(() => transcribeWindows(pcm120, 16_000, async (w) => (await shipped(w, { return_timestamps: true })) as WindowOutput)),
  );
}
console.log(`${size}.en random (real dimensions), ${threads} thread(s), ${o.rounds} rounds alternating; load average per round: ${loads.join(", ")}`);
console.log("| variant (30 s clip unless said) | median wall ms | median CPU ms | wall ms of each round |\n| --- | --- | --- | --- |");
for (const [name, ms] of results) {
  console.log(
    `| ${name} | ${Math.round(median(ms.map((m) => m.wall)))} | ${Math.round(median(ms.map((m) => m.cpu)))} | ${ms.map((m) => Math.round(m.wall)).join(", ")} |`,
  );
}
