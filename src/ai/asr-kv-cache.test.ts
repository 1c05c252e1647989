/**
 * The merged decoder's cached steps stop returning the encoder's key/values (ai/asr-kv-cache.ts),
 * on the real fixture model through transformers.js, with the transcript and timestamps unchanged.
 */
import { afterAll, expect, test } from "bun:test";
import path from "node:path";
import type { AutomaticSpeechRecognitionPipeline } from "@huggingface/transformers";
import { skipRepeatedEncoderCache } from "./asr-kv-cache.ts";
import { decodeAudio } from "./audio.ts";
import { FIXTURE_ASR_MODEL, FIXTURE_MODELS_DIR, FIXTURE_TRANSCRIPT, makeScratchDir, speechWav } from "../../test/helpers/audio-fixtures.ts";

const scratch = makeScratchDir();
const pipelines: AutomaticSpeechRecognitionPipeline[] = [];
afterAll(async () => {
  await Promise.all(pipelines.map((p) => p.dispose()));
  scratch.remove();
});

type Session = { run: (...a: unknown[]) => Promise<Record<string, unknown>> };

/** A fresh fixture pipeline whose decoder runs' output names are recorded (outermost wrapper). */
async function recordedPipeline(skip: boolean) {
  const { env, pipeline } = await import("@huggingface/transformers");
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = path.resolve(FIXTURE_MODELS_DIR) + path.sep;
  const asr = await pipeline("automatic-speech-recognition", FIXTURE_ASR_MODEL, { dtype: "fp32" });
  pipelines.push(asr);
  const changed = skip ? skipRepeatedEncoderCache(asr) : false;
  const decoder = (asr.model as unknown as { sessions: Record<string, Session> }).sessions.decoder_model_merged!;
  const outputs: string[][] = [];
  const run = decoder.run.bind(decoder);
  decoder.run = async (...a) => {
    const out = await run(...a);
    outputs.push(Object.keys(out));
    return out;
  };
  return { asr, changed, outputs };
}

test("cached decoder steps return no encoder key/values; the first step does; the transcript is the same", async () => {
  const { pcm } = await decodeAudio(await speechWav(scratch.dir, "the cache keeps what it needs"));
  const plain = await recordedPipeline(false);
  const skipping = await recordedPipeline(true);
  expect(skipping.changed).toBe(true);
  const expected = await plain.asr(pcm, { return_timestamps: true });
  const got = await skipping.asr(pcm, { return_timestamps: true });
  expect(got).toEqual(expected);
  expect((got as { text: string }).text.trim()).toBe(FIXTURE_TRANSCRIPT);

  const isEncoderPresent = (n: string) => /^present\.\d+\.encoder\./.test(n);
  expect(skipping.outputs.length).toBeGreaterThan(2);
  expect(skipping.outputs[0]!.some(isEncoderPresent)).toBe(true);
  for (const names of skipping.outputs.slice(1)) {
    expect(names.some(isEncoderPresent)).toBe(false);
    expect(names).toContain("logits");
  }
  // Without it, every step carries them: what the change removes.
  expect(plain.outputs.every((names) => names.some(isEncoderPresent))).toBe(true);
});

test("a pipeline without a merged decoder is left alone", () => {
  expect(skipRepeatedEncoderCache({ model: { sessions: { model: {} } } })).toBe(false);
  expect(skipRepeatedEncoderCache({})).toBe(false);
});
