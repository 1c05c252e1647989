/**
 * @module bench/vad
 * What skipping silence before Whisper saves (issue 27; src/ai/vad.ts): 60 s recordings of
 * espeak-ng speech with pauses (about half silence; quiet, noisy, and all-speech and all-silence
 * controls) transcribed through the real inference worker with `EARSHOT_VAD=off` and `energy`,
 * alternating, same clips. Reports the worker's ASR time (median of --runs), the share of audio
 * Whisper is given, and the voice-activity step's own cost. Prints figures; asserts nothing.
 *
 *   npx bun bench/vad.ts                                  # the staged fixture Whisper
 *   npx bun bench/vad.ts --models-dir ./models --model Xenova/whisper-tiny.en --runs 5 --json
 */
import "../src/runtime/preload.ts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { decodeAudio, TARGET_SAMPLE_RATE_HZ } from "../src/ai/audio.ts";
import { createInferenceClient } from "../src/ai/inference-client.ts";
import { skipSilence } from "../src/ai/vad.ts";
import { type ClipPart, pauseClip } from "../test/helpers/pause-clips.ts";

const { values: flags } = parseArgs({
  options: {
    "models-dir": { type: "string", default: path.resolve(import.meta.dir, "..", "..", "shared", "models", "fixture") },
    model: { type: "string", default: "whisper-tiny-random" },
    runs: { type: "string", default: "3" },
    threads: { type: "string", default: "1" },
    json: { type: "boolean", default: false },
  },
});

const SENTENCES = [
  "the checkout page was slow and I almost gave up",
  "shipping cost more than the product itself",
  "support answered quickly and fixed my problem",
  "I could not find the button to change my address",
  "the app crashed twice when I tried to pay",
  "please add a dark mode to the dashboard",
];

/** About 60 s: sentences (2.5–3.5 s each) separated by `pauseS` of silence, until 60 s are filled. */
function clipParts(pauseS: number): ClipPart[] {
  const parts: ClipPart[] = [];
  for (let i = 0; parts.length < 40; i++) {
    parts.push({ say: SENTENCES[i % SENTENCES.length]! });
    if (pauseS > 0) parts.push({ silenceS: pauseS });
  }
  return parts;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "earshot-bench-vad-"));
  const runs = Number(flags.runs);
  const clients = Object.fromEntries(
    (["off", "energy"] as const).map((vad) => [
      vad,
      createInferenceClient({
        modelsDir: flags["models-dir"]!,
        asrModel: flags.model!,
        sentimentModel: "none",
        threads: Number(flags.threads),
        vad,
      }),
    ]),
  );
  try {
    const specs: { name: string; parts: ClipPart[]; noise?: number }[] = [
      { name: "50 % silence (3 s pauses)", parts: clipParts(3) },
      { name: "50 % silence, noise under it", parts: clipParts(3), noise: 0.01 },
      { name: "speech with 0.5 s pauses", parts: clipParts(0.5) },
      { name: "silence only", parts: [{ silenceS: 60 }] },
    ];
    const rows = [];
    for (const spec of specs) {
      const clip = pauseClip(dir, spec.name.replace(/\W+/g, "-"), spec.parts, spec.noise);
      // Every clip is cut to 60 s, so the rows compare the same recording length.
      const sixtyFile = clip.file.replace(/\.wav$/, "-60.wav");
      if (Bun.spawnSync(["sox", clip.file, sixtyFile, "trim", "0", "60"]).exitCode !== 0) throw new Error("sox trim failed");
      const full = new Uint8Array(readFileSync(sixtyFile));
      const { pcm: sixty, durationS } = await decodeAudio(full);
      const vadMs: number[] = [];
      let keptS = 0;
      for (let r = 0; r < runs; r++) {
        const start = performance.now();
        keptS = skipSilence(sixty, TARGET_SAMPLE_RATE_HZ).pcm.length / TARGET_SAMPLE_RATE_HZ;
        vadMs.push(performance.now() - start);
      }
      const times: Record<string, number[]> = { off: [], energy: [] };
      await clients.off!.transcribe(full); // warm-up: model load, both workers
      await clients.energy!.transcribe(full);
      for (let r = 0; r < runs; r++) {
        for (const vad of r % 2 === 0 ? ["off", "energy"] : ["energy", "off"]) {
          const result = await clients[vad]!.transcribe(full);
          times[vad]!.push(result.timings.asrMs);
        }
      }
      rows.push({
        clip: spec.name,
        durationS: Math.round(durationS * 10) / 10,
        whisperShare: Math.round((keptS / (sixty.length / TARGET_SAMPLE_RATE_HZ)) * 100),
        vadMs: Math.round(median(vadMs) * 10) / 10,
        asrMsOff: Math.round(median(times.off!)),
        asrMsEnergy: Math.round(median(times.energy!)),
      });
    }
    if (flags.json) console.log(JSON.stringify(rows, null, 2));
    else {
      console.log("| clip | length | audio given to Whisper | VAD step | ASR time, off | ASR time, energy | saving |");
      console.log("| --- | --- | --- | --- | --- | --- | --- |");
      for (const r of rows) {
        const saving = r.asrMsOff > 0 ? Math.round((1 - r.asrMsEnergy / r.asrMsOff) * 100) : 0;
        console.log(`| ${r.clip} | ${r.durationS} s | ${r.whisperShare} % | ${r.vadMs} ms | ${r.asrMsOff} ms | ${r.asrMsEnergy} ms | ${saving} % |`);
      }
    }
  } finally {
    await Promise.all(Object.values(clients).map((c) => c.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
