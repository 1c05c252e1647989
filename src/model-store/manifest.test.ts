import { describe, expect, test } from "bun:test";
import path from "node:path";
import { sha256OfFile } from "./files.ts";
import { loadManifest, parseManifest, selectModels } from "./manifest.ts";
import { FIXTURE_MODELS_DIR, fixtureManifest } from "../../test/helpers/model-hub.ts";

describe("the bundled manifest", () => {
  test("is valid and lists the Whisper and sentiment models users get", async () => {
    const manifest = await loadManifest();
    expect(manifest.models.map((m) => m.id)).toEqual([
      "Xenova/whisper-tiny.en",
      "Xenova/whisper-base.en",
      "Xenova/whisper-tiny",
      "Xenova/whisper-base",
      "Xenova/whisper-small",
      "Xenova/twitter-roberta-base-sentiment-latest",
      "Xenova/twitter-xlm-roberta-base-sentiment",
      "Xenova/all-MiniLM-L6-v2",
      "Xenova/paraphrase-multilingual-MiniLM-L12-v2",
    ]);
    expect(selectModels(manifest).map((m) => m.id)).toEqual(["Xenova/whisper-tiny.en", "Xenova/twitter-roberta-base-sentiment-latest"]);
    for (const model of manifest.models) {
      expect(model.license === null ? model.license_note : model.license).toBeTruthy();
      if (model.task === "automatic-speech-recognition") {
        const paths = model.files.map((f) => f.path);
        for (const p of [
          "config.json",
          "generation_config.json",
          "preprocessor_config.json",
          "tokenizer.json",
          "tokenizer_config.json",
          "onnx/encoder_model_quantized.onnx",
          "onnx/decoder_model_merged_quantized.onnx",
        ]) {
          expect(paths).toContain(p);
        }
      }
    }
  });

  test("pins every file: a hub commit per model, a size and a sha256 per file", async () => {
    // The exceptions (docs/models.md "Where the hashes come from"): no revision-pinned public
    // manifest of the multilingual sentiment model or of the two optional sentence-embedding
    // models was found, so their first fetch records sizes and hashes.
    const unpinned = ["Xenova/twitter-xlm-roberta-base-sentiment", "Xenova/all-MiniLM-L6-v2", "Xenova/paraphrase-multilingual-MiniLM-L12-v2"];
    for (const model of (await loadManifest()).models.filter((m) => unpinned.includes(m.id))) {
      expect(model.default).toBe(false);
      expect(model.provenance).toContain("No revision-pinned manifest");
      for (const f of model.files) expect([f.size, f.sha256, f.verify]).toEqual([null, null, "size-and-sha256-recorded-on-first-fetch"]);
    }
    for (const model of (await loadManifest()).models.filter((m) => !unpinned.includes(m.id))) {
      expect(model.revision).toMatch(/^[0-9a-f]{40}$/);
      expect(model.provenance).toBeTruthy();
      for (const f of model.files) {
        expect({ path: f.path, verify: f.verify, optional: f.optional }).toEqual({ path: f.path, verify: "sha256", optional: false });
        expect(f.size).toBeGreaterThan(0);
        expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
      }
    }
  });

  test("the Whisper tokenizer and preprocessor pins match the real files staged with the fixture", async () => {
    const whisper = (await loadManifest()).models.filter((m) => m.task === "automatic-speech-recognition" && m.id.endsWith(".en"));
    expect(whisper).toHaveLength(2);
    for (const model of whisper) {
      for (const name of ["preprocessor_config.json", "tokenizer.json", "tokenizer_config.json"]) {
        const pin = model.files.find((f) => f.path === name)!;
        const real = path.join(FIXTURE_MODELS_DIR, "whisper-tiny-random", name);
        expect({ size: Bun.file(real).size, sha256: await sha256OfFile(real) }).toEqual({ size: pin.size!, sha256: pin.sha256! });
      }
    }
  });

  test("the multilingual Whisper models share one tokenizer, and models fetch --model selects them", async () => {
    const manifest = await loadManifest();
    const ids = ["Xenova/whisper-tiny", "Xenova/whisper-base", "Xenova/whisper-small"];
    const models = selectModels(manifest, ids);
    expect(models.map((m) => [m.id, m.default, m.revision.length])).toEqual(ids.map((id) => [id, false, 40]));
    for (const name of ["preprocessor_config.json", "tokenizer.json", "tokenizer_config.json"]) {
      const pins = new Set(models.map((m) => JSON.stringify(m.files.find((f) => f.path === name))));
      expect(pins.size).toBe(1);
    }
    expect(selectModels(manifest, ["Xenova/twitter-xlm-roberta-base-sentiment"])[0]!.task).toBe("text-classification");
  });

  test("the sentence-embedding models are optional and installed as the files the themes engine loads", async () => {
    const manifest = await loadManifest();
    const ids = ["Xenova/all-MiniLM-L6-v2", "Xenova/paraphrase-multilingual-MiniLM-L12-v2"];
    expect(manifest.models.filter((m) => m.task === "feature-extraction").map((m) => m.id)).toEqual(ids);
    for (const model of selectModels(manifest, ids)) {
      expect(model.default).toBe(false);
      expect(model.files.map((f) => f.path).sort()).toEqual(["config.json", "onnx/model_quantized.onnx", "tokenizer.json", "tokenizer_config.json"]);
    }
  });

  test("the sentiment model is installed as its 8-bit weights, which the insights engine loads", async () => {
    const sentiment = (await loadManifest()).models.find((m) => m.task === "text-classification")!;
    expect(sentiment.files.map((f) => f.path).sort()).toEqual(["config.json", "onnx/model_quantized.onnx", "tokenizer.json", "tokenizer_config.json"]);
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

  test('a sha256 goes with verify "sha256", an unknown one with the recorded mode', () => {
    const m = structuredClone(valid);
    m.models[0]!.files[0]!.sha256 = null;
    expect(() => parseManifest(m)).toThrow(/verify/);
  });

  test("selectModels names unknown ids and the known ones", () => {
    expect(() => selectModels(valid, ["nope"])).toThrow(/nope is not in the manifest \(known: whisper-tiny-random, tiny-sentiment-3class\)/);
  });
});
