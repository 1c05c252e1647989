/**
 * The hearing Whisper fixture's word error rate on its held-out clips (voices and sentences never
 * used in training), measured through Earshot's own transcription path: `createAsr`
 * (transformers.js + ONNX Runtime, the exported files) on the WAVs train.py wrote.
 *
 * Usage: npx bun scripts/hearing-fixture/heldout-wer.ts <train.py --out folder> [models dir] [model id]
 * (defaults: test/fixtures/models, whisper-hears). Prints one line per clip and the total.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createAsr } from "../../src/ai/asr.ts";
import { decodeAudio } from "../../src/ai/audio.ts";

const [trained, modelsDir = path.resolve(import.meta.dir, "../../test/fixtures/models"), model = "whisper-hears"] = process.argv.slice(2);
if (!trained) throw new Error("usage: heldout-wer.ts <train.py --out folder> [models dir] [model id]");
const clips = JSON.parse(readFileSync(path.join(trained, "heldout.json"), "utf8")) as { file: string; text: string; voice: string }[];
const asr = createAsr(modelsDir, model, 1, "energy");

/** Word-level Levenshtein distance (substitutions + insertions + deletions). */
function editDistance(ref: string[], hyp: string[]): number {
  let row = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const next = [i];
    for (let j = 1; j <= hyp.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    row = next;
  }
  return row[hyp.length]!;
}
const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9']+/)
    .filter(Boolean);

let errors = 0;
let total = 0;
for (const clip of clips) {
  const { pcm, durationS } = await decodeAudio(new Uint8Array(readFileSync(path.join(trained, "heldout", clip.file))));
  const { text } = await asr.transcribe(pcm, { durationS });
  const e = editDistance(words(clip.text), words(text));
  errors += e;
  total += words(clip.text).length;
  console.log(`${clip.file} [${clip.voice}] "${clip.text}" -> "${text}" (${e} errors)`);
}
console.log(`held-out WER through createAsr (${model}): ${(errors / total).toFixed(3)} (${errors}/${total} words, ${clips.length} clips)`);
