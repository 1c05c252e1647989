/**
 * The sentence-embedding engine (issue 24) on the generated fixture model
 * (scripts/make-embedder-fixture.py, test/fixtures/models/tiny-embedder): loaded offline through
 * @huggingface/transformers and ONNX Runtime, and used by the theme build; the selection between
 * it and the built-in engine.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EMBEDDER_FIXTURE_MODELS_DIR, FIXTURE_EMBEDDING_MODEL } from "../../../test/helpers/fixtures.ts";
import { FIXTURE_THEME_SET, installFixtureEmbedder } from "../../../test/helpers/embedder-set.ts";
import { buildThemes } from "./build.ts";
import { createSifEmbedder, SIF_ENGINE_ID } from "./embedder.ts";
import { assignAnswer } from "./incremental.ts";
import { dot } from "./linalg.ts";
import { adjustedRandIndex } from "./metrics.ts";
import { themeModelOf } from "./model-store.ts";
import { hasSentenceModel, loadSentenceEmbedder, SENTENCE_BATCH } from "./sentence-embedder.ts";
import { selectEmbedder } from "./select.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-embedder-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const engine = await loadSentenceEmbedder(EMBEDDER_FIXTURE_MODELS_DIR, FIXTURE_EMBEDDING_MODEL);

describe("sentence-embedding engine on the fixture model", () => {
  test("loads from the models directory; its id is the model id and its width the model's", () => {
    expect(hasSentenceModel(EMBEDDER_FIXTURE_MODELS_DIR, FIXTURE_EMBEDDING_MODEL)).toBe(true);
    expect(engine.id).toBe(FIXTURE_EMBEDDING_MODEL);
    expect(engine.dimensions).toBe(32);
  });

  test("unit-length vectors, the same for a text alone or in a padded batch of any size; empty text is zero", async () => {
    const texts = FIXTURE_THEME_SET.map((a) => a.text);
    const many = [...texts, ...texts].slice(0, SENTENCE_BATCH + 5); // crosses a batch boundary
    const together = await engine.embedBatch(["", ...many, "   "]);
    expect(together).toHaveLength(many.length + 2);
    for (const v of [together[0]!, together.at(-1)!]) expect(Array.from(v).every((x) => x === 0)).toBe(true);
    for (const [i, text] of many.entries()) {
      const v = together[i + 1]!;
      expect(v).toHaveLength(32);
      expect(dot(v, v)).toBeCloseTo(1, 5);
      const [alone] = await engine.embedBatch([text]);
      for (let d = 0; d < 32; d++) expect(v[d]!).toBeCloseTo(alone![d]!, 5);
    }
  });

  test("the model's meaning reaches the vectors: words of one topic are close, other topics are not", async () => {
    const [postage, courier, crash] = await engine.embedBatch(["postage", "courier", "crash"]);
    // Every token shares one component (as in real encoders), so unrelated words are not orthogonal.
    expect(dot(postage!, courier!)).toBeGreaterThan(0.9);
    expect(dot(postage!, courier!) - dot(postage!, crash!)).toBeGreaterThan(0.3);
  });

  test("buildThemes with its vectors groups the answers by the fixture's topics", async () => {
    const vectors = await engine.embedBatch(FIXTURE_THEME_SET.map((a) => a.text));
    const inputs = FIXTURE_THEME_SET.map((a, i) => ({ id: a.id, text: a.text, vector: vectors[i]! }));
    const build = buildThemes(inputs, engine);
    expect(build.engine).toBe(FIXTURE_EMBEDDING_MODEL);
    const themed = FIXTURE_THEME_SET.map((a, i) => ({ gold: a.gold, theme: build.assignments[i] })).filter((x) => x.gold !== null);
    expect(themed.every((x) => x.theme !== null)).toBe(true);
    expect(
      adjustedRandIndex(
        themed.map((x) => x.gold!),
        themed.map((x) => x.theme!),
      ),
    ).toBe(1);
    expect(build.themes.map((t) => t.members.length)).toEqual([7, 5, 4]);
    // A theme model of this engine assigns this engine's vectors only.
    const model = themeModelOf(build);
    const [late] = await engine.embedBatch(["The courier was late again."]);
    expect(assignAnswer(late!, engine.id, model).theme).toBe(build.assignments[0]!);
    expect(assignAnswer(createSifEmbedder().embed("The courier was late again."), SIF_ENGINE_ID, model).theme).toBeNull();
  });
});

describe("selectEmbedder", () => {
  test("auto: the built-in engine with no model installed, the sentence model once it is", async () => {
    const dir = path.join(tmp, "auto");
    fs.mkdirSync(dir);
    const warnings: string[] = [];
    expect((await selectEmbedder({ modelsDir: dir, onWarning: (l) => warnings.push(l) })).id).toBe(SIF_ENGINE_ID);
    installFixtureEmbedder(dir, "Xenova/paraphrase-multilingual-MiniLM-L12-v2");
    expect((await selectEmbedder({ modelsDir: dir })).id).toBe("Xenova/paraphrase-multilingual-MiniLM-L12-v2");
    installFixtureEmbedder(dir, "Xenova/all-MiniLM-L6-v2");
    const chosen = await selectEmbedder({ modelsDir: dir, choice: "auto" });
    expect([chosen.id, chosen.dimensions]).toEqual(["Xenova/all-MiniLM-L6-v2", 32]);
    expect(warnings).toEqual([]);
  });

  test("sif always picks the built-in engine; a named model picks it, or warns and falls back", async () => {
    const warnings: string[] = [];
    const onWarning = (l: string) => warnings.push(l);
    const modelsDir = EMBEDDER_FIXTURE_MODELS_DIR;
    expect((await selectEmbedder({ modelsDir, choice: "sif", onWarning })).id).toBe(SIF_ENGINE_ID);
    expect((await selectEmbedder({ modelsDir, choice: FIXTURE_EMBEDDING_MODEL, onWarning })).id).toBe(FIXTURE_EMBEDDING_MODEL);
    expect(warnings).toEqual([]);
    expect((await selectEmbedder({ modelsDir, choice: "Xenova/all-MiniLM-L6-v2", onWarning })).id).toBe(SIF_ENGINE_ID);
    expect(warnings).toEqual([`embedding model Xenova/all-MiniLM-L6-v2 is not installed in ${modelsDir}; using the built-in engine`]);
  });

  test("an installed model that fails to load: one warning, the built-in engine answers", async () => {
    const dir = path.join(tmp, "broken");
    const folder = installFixtureEmbedder(dir, "Xenova/all-MiniLM-L6-v2");
    fs.writeFileSync(path.join(folder, "onnx", "model.onnx"), "not an onnx file");
    const warnings: string[] = [];
    const chosen = await selectEmbedder({ modelsDir: dir, onWarning: (l) => warnings.push(l) });
    expect(chosen.id).toBe(SIF_ENGINE_ID);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith("embedding model Xenova/all-MiniLM-L6-v2 failed to load, using the built-in engine");
  });
});
