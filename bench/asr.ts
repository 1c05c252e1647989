/**
 * @module bench/asr
 * Word error rate and real-time factor of the installed Whisper model over a folder of
 * recordings with reference transcripts (bench/data/asr: espeak-ng speech made by its
 * generate.ts), on 1 and 2 ONNX Runtime intra-op threads (session option `intraOpNumThreads`,
 * which transformers.js passes through). Time is split into the pipeline's own overhead —
 * container decoding, resampling to 16 kHz, log-mel features, the worker round trip — and the
 * model itself (encoder + decoder + token decoding). Prints figures; asserts nothing about time.
 *
 *   npx bun bench/asr.ts                                         # ./models, Xenova/whisper-tiny.en
 *   npx bun bench/asr.ts --models-dir ../shared/models/fixture --model whisper-tiny-random
 *   … --threads 1,2 --runs 3 --data bench/data/asr --json
 *
 * With the staged fixture the WER is about 100 %: it returns one fixed sentence for any speech.
 *
 *   npx bun bench/asr.ts --side-by-side [--engines transformers,whispercpp,cli] [--rounds 3] …
 *
 * runs instead Earshot against whisper.cpp's own CLI on the same clips and steered models
 * (bench/asr-side-by-side.ts: RTF, peak RSS, cold start, ratio to whisper-cli).
 */
import "../src/runtime/preload.ts";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { AutomaticSpeechRecognitionPipeline } from "@huggingface/transformers";
import { resample } from "wave-resampler";
import { WaveFile } from "wavefile";
import { decodeAudio, TARGET_SAMPLE_RATE_HZ } from "../src/ai/audio.ts";
import { createInferenceClient } from "../src/ai/inference-client.ts";
import { installedWeights } from "../src/ai/model-weights.ts";

if (process.argv.includes("--side-by-side")) {
  await import("./asr-side-by-side.ts");
  process.exit(0);
}

const { values: flags } = parseArgs({
  options: {
    "models-dir": { type: "string", default: "models" },
    model: { type: "string", default: "Xenova/whisper-tiny.en" },
    data: { type: "string", default: path.join(import.meta.dir, "data", "asr") },
    threads: { type: "string", default: "1,2" },
    runs: { type: "string", default: "3" },
    json: { type: "boolean", default: false },
  },
});

type Recording = { name: string; bytes: Uint8Array; reference: string };

/** Lower case, punctuation and extra spaces removed; the usual normalisation before WER. */
export function normaliseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, " ")
    .split(/\s+/)
    .filter(Boolean);
}

/** Word-level Levenshtein distance (substitutions + insertions + deletions). */
export function wordEdits(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const row = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[hypothesis.length]!;
}

function loadRecordings(dir: string): Recording[] {
  return readdirSync(dir)
    .filter((f) => /\.(wav|webm|ogg|opus)$/.test(f))
    .sort()
    .flatMap((f) => {
      const txt = path.join(dir, f.replace(/\.[^.]+$/, ".txt"));
      if (!existsSync(txt)) return [];
      return [{ name: f, bytes: new Uint8Array(readFileSync(path.join(dir, f))), reference: readFileSync(txt, "utf8").trim() }];
    });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Time of resampling alone (WAV at another rate than 16 kHz), measured the way audio.ts does it. */
function resampleMs(bytes: Uint8Array): number {
  if (!(bytes[0] === 0x52 && bytes[8] === 0x57)) return 0; // not RIFF/WAVE: Opus decodes at 16 kHz directly
  const wav = new WaveFile(bytes);
  const rate = (wav.fmt as { sampleRate: number }).sampleRate;
  if (rate === TARGET_SAMPLE_RATE_HZ) return 0;
  const samples = Float64Array.from(wav.getSamples(false, Float64Array) as unknown as ArrayLike<number>, (x) => x / 32768);
  const started = performance.now();
  resample(samples, rate, TARGET_SAMPLE_RATE_HZ, { method: "cubic", LPF: true });
  return performance.now() - started;
}

async function loadPipeline(modelsDir: string, model: string, threads: number): Promise<AutomaticSpeechRecognitionPipeline> {
  const { env, pipeline } = await import("@huggingface/transformers");
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = modelsDir + path.sep;
  // The same choice as src/ai/asr.ts: full precision when present, else the 8-bit pair.
  const dtype = installedWeights(path.join(modelsDir, model), "encoder_model") ?? "q8";
  return pipeline("automatic-speech-recognition", model, {
    dtype,
    session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
  });
}

type Row = { name: string; durationS: number; decodeMs: number; resampleMs: number; featuresMs: number; modelMs: number; text: string };

async function benchInProcess(recordings: Recording[], modelsDir: string, model: string, threads: number, runs: number) {
  const loadStart = performance.now();
  const asr = await loadPipeline(modelsDir, model, threads);
  const loadMs = performance.now() - loadStart;
  await asr((await decodeAudio(recordings[0]!.bytes)).pcm); // warm-up: first-run allocations
  const rows: Row[] = [];
  for (const r of recordings) {
    const decode: number[] = [];
    const features: number[] = [];
    const total: number[] = [];
    let text = "";
    let durationS = 0;
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      const audio = await decodeAudio(r.bytes);
      decode.push(performance.now() - t);
      durationS = audio.durationS;
      t = performance.now();
      await asr.processor(audio.pcm);
      features.push(performance.now() - t);
      t = performance.now();
      const out = await asr(audio.pcm);
      total.push(performance.now() - t);
      text = (Array.isArray(out) ? out.map((o) => o.text).join(" ") : out.text).trim();
    }
    const resample = median(Array.from({ length: runs }, () => resampleMs(r.bytes)));
    const featuresMs = median(features);
    rows.push({
      name: r.name,
      durationS,
      decodeMs: median(decode) - resample,
      resampleMs: resample,
      featuresMs,
      modelMs: Math.max(0, median(total) - featuresMs),
      text,
    });
  }
  await asr.dispose();
  return { threads, loadMs, rows };
}

/**
 * Through the real worker (ORT's default thread count). The empty round trip is a request the
 * worker rejects at once (4 bytes of non-audio): message passing alone. The transcription
 * overhead is wall time minus the worker's own decode + ASR timings: copying the bytes, queueing,
 * and whatever the worker thread does around the model (garbage collection, ORT's spinning threads).
 */
async function benchWorker(recordings: Recording[], modelsDir: string, model: string, runs: number) {
  const client = createInferenceClient({ modelsDir, asrModel: model, sentimentModel: "(none)" });
  try {
    await client.transcribe(recordings[0]!.bytes);
    const empty: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      await client.transcribe(new Uint8Array(4)).catch(() => undefined);
      empty.push(performance.now() - t);
    }
    const overhead: number[] = [];
    const wall: number[] = [];
    for (const r of recordings) {
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        const result = await client.transcribe(r.bytes);
        const ms = performance.now() - t;
        wall.push(ms);
        overhead.push(ms - result.timings.decodeMs - result.timings.asrMs - result.timings.loadMs);
      }
    }
    const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;
    return { emptyRoundTripMs: median(empty), overheadMs: median(overhead), overheadP90Ms: p90(overhead), wallMs: median(wall) };
  } finally {
    await client.close();
  }
}

const modelsDir = path.resolve(flags["models-dir"]!);
const model = flags.model!;
if (!existsSync(path.join(modelsDir, model))) {
  console.error(`No model ${model} in ${modelsDir}: run \`earshot models fetch\` or pass --models-dir/--model.`);
  process.exit(1);
}
const recordings = loadRecordings(path.resolve(flags.data!));
if (recordings.length === 0) {
  console.error(`No recordings with .txt transcripts in ${flags.data}; run bench/data/asr/generate.ts.`);
  process.exit(1);
}
const runs = Math.max(1, Number(flags.runs));
const threadCounts = flags
  .threads!.split(",")
  .map(Number)
  .filter((n) => n >= 1);

const results = [];
for (const threads of threadCounts) results.push(await benchInProcess(recordings, modelsDir, model, threads, runs));
const worker = await benchWorker(recordings, modelsDir, model, runs);

const summaries = results.map(({ threads, loadMs, rows }) => {
  const refWords = recordings.map((r) => normaliseWords(r.reference));
  const edits = sum(rows.map((row, i) => wordEdits(refWords[i]!, normaliseWords(row.text))));
  const audioS = sum(rows.map((r) => r.durationS));
  const stage = (k: keyof Pick<Row, "decodeMs" | "resampleMs" | "featuresMs" | "modelMs">) => sum(rows.map((r) => r[k]));
  const pipelineMs = stage("decodeMs") + stage("resampleMs") + stage("featuresMs") + stage("modelMs");
  return {
    threads,
    loadMs: Math.round(loadMs),
    wer: edits / sum(refWords.map((w) => w.length)),
    audioS,
    rtf: pipelineMs / 1000 / audioS,
    modelRtf: stage("modelMs") / 1000 / audioS,
    perRecordingMs: {
      decode: stage("decodeMs") / rows.length,
      resample: stage("resampleMs") / rows.length,
      features: stage("featuresMs") / rows.length,
      model: stage("modelMs") / rows.length,
    },
    rows,
  };
});

if (flags.json) {
  console.log(JSON.stringify({ model, modelsDir, cpus: os.cpus().length, runs, recordings: recordings.length, summaries, worker }, null, 2));
} else {
  const ms = (x: number) => x.toFixed(1).padStart(8);
  console.log(
    `ASR benchmark: ${model} from ${modelsDir}; ${recordings.length} recordings, ${summaries[0]!.audioS.toFixed(1)} s of audio; median of ${runs} runs; ${os.cpus().length} CPUs`,
  );
  console.log("threads   WER     RTF  model RTF   load ms | per recording ms: decode resample features    model");
  for (const s of summaries) {
    const p = s.perRecordingMs;
    console.log(
      `${String(s.threads).padStart(7)} ${(100 * s.wer).toFixed(1).padStart(5)}% ${s.rtf.toFixed(3).padStart(7)} ${s.modelRtf.toFixed(3).padStart(10)} ${String(s.loadMs).padStart(9)} |                 ${ms(p.decode)} ${ms(p.resample)} ${ms(p.features)} ${ms(p.model)}`,
    );
  }
  console.log(
    `worker: empty round trip ${worker.emptyRoundTripMs.toFixed(2)} ms; per transcription, outside decode + ASR: median ${worker.overheadMs.toFixed(1)} ms, p90 ${worker.overheadP90Ms.toFixed(1)} ms; median wall time ${worker.wallMs.toFixed(1)} ms`,
  );
  const first = summaries[0]!.rows[0]!;
  console.log(`example: ${first.name}: "${first.text}" (reference: "${recordings[0]!.reference}")`);
}
