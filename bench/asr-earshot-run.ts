/**
 * @module bench/asr-earshot-run
 * One fresh process of the side-by-side run (bench/asr-side-by-side.ts): Earshot's real path —
 * the configuration → `createInferenceClient` → worker → `createAsr` — as `earshot transcribe` uses it. The engine is
 * whatever `EARSHOT_ASR_ENGINE` selects once the whisper.cpp engine is merged (the parent sets it).
 * Prints one JSON line: the cold first transcription (worker start + model load + the first clip),
 * per clip the warm wall times, the worker's asr/load timings and word count, the process's RSS with
 * the model loaded and after `EARSHOT_ASR_IDLE_UNLOAD_S` unloaded it, and its peak RSS.
 *
 *   npx bun bench/asr-earshot-run.ts --models-dir DIR --model ID --threads 1 --reps 1 [--idle-unload-s 2] CLIPS…
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { clientFor } from "../src/commands/inference.ts";
import { loadConfig } from "../src/config.ts";

const { values: o, positionals: clips } = parseArgs({
  allowPositionals: true,
  options: {
    "models-dir": { type: "string" },
    model: { type: "string" },
    threads: { type: "string", default: "1" },
    reps: { type: "string", default: "1" },
    "idle-unload-s": { type: "string", default: "2" },
    vad: { type: "string", default: "energy" },
  },
});
const idleUnloadS = Number(o["idle-unload-s"]);
// Built from the configuration as `earshot transcribe` builds it, so every EARSHOT_* setting the
// parent passes (EARSHOT_ASR_ENGINE included) reaches the worker the way it does in production.
const client = clientFor(
  loadConfig({
    ...process.env,
    EARSHOT_MODELS_DIR: o["models-dir"],
    EARSHOT_ASR_MODEL: o.model,
    EARSHOT_INFERENCE_THREADS: o.threads,
    EARSHOT_ASR_IDLE_UNLOAD_S: String(idleUnloadS),
    EARSHOT_VAD: o.vad,
  }),
);
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const audio = clips.map((f) => ({ name: path.basename(f), bytes: new Uint8Array(readFileSync(f)) }));
const rssBeforeMb = mb(process.memoryUsage().rss);

const t0 = performance.now();
const first = await client.transcribe(audio[0]!.bytes);
const cold = { clip: audio[0]!.name, wall_ms: performance.now() - t0, load_ms: first.timings.loadMs, asr_ms: first.timings.asrMs, words: words(first.text) };

const runs: Record<string, { wall_ms: number; asr_ms: number; load_ms: number; words: number; duration_s: number; segments: number }[]> = {};
for (let r = 0; r < Number(o.reps); r++) {
  for (const a of audio) {
    const t = performance.now();
    const res = await client.transcribe(a.bytes);
    (runs[a.name] ??= []).push({
      wall_ms: performance.now() - t,
      asr_ms: res.timings.asrMs,
      load_ms: res.timings.loadMs,
      words: words(res.text),
      duration_s: res.durationS,
      segments: res.segments.length,
    });
  }
}
const rssLoadedMb = mb(process.memoryUsage().rss);
// Idle: the worker unloads the model after idleUnloadS; give the allocator a moment to return pages.
let rssUnloadedMb: number | null = null;
if (idleUnloadS > 0) {
  await Bun.sleep(idleUnloadS * 1000 + 1500);
  Bun.gc(true);
  rssUnloadedMb = mb(process.memoryUsage().rss);
}
await client.close();
console.log(
  JSON.stringify({
    engine: process.env.EARSHOT_ASR_ENGINE ?? "transformers",
    model: o.model,
    threads: Number(o.threads),
    cold,
    runs,
    rss_start_mb: rssBeforeMb,
    rss_loaded_mb: rssLoadedMb,
    rss_unloaded_mb: rssUnloadedMb,
    max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
