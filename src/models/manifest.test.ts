import { describe, expect, test } from "bun:test";
import path from "node:path";
import { sha256OfFile } from "./files.ts";
import { loadManifest, parseManifest, selectModels } from "./manifest.ts";
import { FIXTURE_MODELS_DIR, fixtureManifest } from "./test-hub.ts";

describe("the bundled manifest", () => {
  test("is valid and lists the Whisper and sentiment models users get", async () => {
    const manifest = await loadManifest();
    expect(manifest.models.map((m) => m.id)).toEqual([
      "Xenova/whisper-tiny.en",
      "Xenova/whisper-base.en",
      "Xenova/twitter-roberta-base-sentiment-latest",
    ]);
    expect(selectModels(manifest).map((m) => m.id)).toEqual(["Xenova/whisper-tiny.en", "Xenova/twitter-roberta-base-sentiment-latest"]);
    for (const model of manifest.models) {
      expect(model.license === null ? model.license_note : model.license).toBeTruthy();
      if (model.task === "automatic-speech-recognition") {
        const paths = model.files.map((f) => f.path);
        for (const p of ["config.json", "generation_config.json", "preprocessor_config.json", "tokenizer.json", "tokenizer_config.json", "onnx/encoder_model_quantized.onnx", "onnx/decoder_model_merged_quantized.onnx"]) {
          expect(paths).toContain(p);
        }
      }
    }
  });

  test("its known sha256s are those of the real files staged with the fixture", async () => {
    const tiny = (await loadManifest()).models[0]!;
    const pinned = tiny.files.filter((f) => f.sha256 !== null);
    expect(pinned.map((f) => f.path).sort()).toEqual(["preprocessor_config.json", "tokenizer.json", "tokenizer_config.json"]);
    for (const f of pinned) {
      expect(await sha256OfFile(path.join(FIXTURE_MODELS_DIR, "whisper-tiny-random", f.path))).toBe(f.sha256!);
    }
  });
});

describe("parseManifest", () => {
  const valid = fixtureManifest();

  test("accepts the fixture manifest", () => {
    expect(parseManifest(JSON.parse(JSON.stringify(valid))).models).toHaveLength(2);
  });

  test("refuses paths that leave the models directory", () => {
    for (const bad of ["../etc", "/abs", "a/../../b", "a//b"]) {
      const m = structuredClone(valid);
      m.models[0]!.files[0]!.path = bad;
      expect(() => parseManifest(m)).toThrow(/relative path/);
      const n = structuredClone(valid);
      n.models[0]!.id = bad;
      expect(() => parseManifest(n)).toThrow(/relative path/);
    }
  });

  test("a sha256 goes with verify \"sha256\", an unknown one with the recorded mode", () => {
    const m = structuredClone(valid);
    m.models[0]!.files[0]!.sha256 = null;
    expect(() => parseManifest(m)).toThrow(/verify/);
  });

  test("selectModels names unknown ids and the known ones", () => {
    expect(() => selectModels(valid, ["nope"])).toThrow(/nope is not in the manifest \(known: whisper-tiny-random, tiny-sentiment-3class\)/);
  });
});
