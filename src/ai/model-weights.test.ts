/**
 * Which weights the loaders pick (src/ai/model-weights.ts), tested through the real loaders on
 * copies of the staged fixtures laid out as `earshot models fetch` installs the real models:
 * 8-bit files only (`*_quantized.onnx`), no full-precision file.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { createAsr, ModelMissingError } from "./asr.ts";
import { decodeAudio } from "./audio.ts";
import { createInsightsEngine } from "./insights/index.ts";
import { installedWeights } from "./model-weights.ts";
import { FIXTURE_ASR_MODEL, FIXTURE_MODELS_DIR, FIXTURE_TRANSCRIPT, makeScratchDir, speechWav } from "../../test/helpers/audio-fixtures.ts";

const scratch = makeScratchDir();
afterAll(() => scratch.remove());

/** A copy of a fixture model under `<scratch>/<name>`; returns its folder. */
function copyFixture(fixture: string, name: string): string {
  const dir = path.join(scratch.dir, name);
  cpSync(path.join(FIXTURE_MODELS_DIR, fixture), dir, { recursive: true });
  return dir;
}

describe("installedWeights", () => {
  test("full precision when its file is there, else 8-bit, else null", () => {
    const dir = copyFixture(FIXTURE_ASR_MODEL, "pick");
    expect(installedWeights(dir, "encoder_model")).toBe("fp32");
    rmSync(path.join(dir, "onnx", "encoder_model.onnx"));
    expect(installedWeights(dir, "encoder_model")).toBe("q8");
    rmSync(path.join(dir, "onnx", "encoder_model_quantized.onnx"));
    expect(installedWeights(dir, "encoder_model")).toBeNull();
  });
});

describe("the loaders on a folder holding only the 8-bit weights", () => {
  test("Whisper loads the _quantized pair and transcribes", async () => {
    const dir = copyFixture(FIXTURE_ASR_MODEL, "whisper-q8");
    rmSync(path.join(dir, "onnx", "encoder_model.onnx"));
    rmSync(path.join(dir, "onnx", "decoder_model_merged.onnx"));
    const { pcm } = await decodeAudio(await speechWav(scratch.dir));
    const result = await createAsr(scratch.dir, "whisper-q8", 1).transcribe(pcm);
    expect(result.text).toBe(FIXTURE_TRANSCRIPT);
  });

  test("with no encoder at all, the error names the 8-bit file that `earshot models fetch` installs", async () => {
    const dir = copyFixture(FIXTURE_ASR_MODEL, "whisper-none");
    rmSync(path.join(dir, "onnx", "encoder_model.onnx"));
    rmSync(path.join(dir, "onnx", "encoder_model_quantized.onnx"));
    const { pcm } = await decodeAudio(await speechWav(scratch.dir));
    const err = await createAsr(scratch.dir, "whisper-none", 1)
      .transcribe(pcm)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ModelMissingError);
    expect((err as ModelMissingError).path).toBe(path.join(dir, "onnx", "encoder_model_quantized.onnx"));
  });

  test("the sentiment classifier loads onnx/model_quantized.onnx", async () => {
    const dir = copyFixture("tiny-sentiment-3class", "sentiment-q8");
    renameSync(path.join(dir, "onnx", "model.onnx"), path.join(dir, "onnx", "model_quantized.onnx"));
    const engine = createInsightsEngine({ modelsDir: scratch.dir, sentimentModel: "sentiment-q8" });
    const result = await engine.analyse("The checkout page keeps crashing when I pay with my card");
    expect(result.engine.sentiment).toBe("transformer:sentiment-q8");
    expect(result.ai_insights.sentiment).toBe("negative");
  });
});
