/**
 * The bundled manifest's sentence-embedding entries go through `models fetch` and `models verify`
 * like the other models (real HTTP to a local hub serving the generated fixture under the real
 * id), and the themes engine then selects what was installed.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { installFixtureEmbedder } from "../../../test/helpers/embedder-set.ts";
import { installModels } from "../../model-store/install.ts";
import { loadManifest, selectModels } from "../../model-store/manifest.ts";
import { startTestHub } from "../../../test/helpers/model-hub.ts";
import { hasProblems, verifyModels } from "../../model-store/verify.ts";
import { selectEmbedder } from "./select.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-embedder-fetch-"));
const hubRoot = path.join(tmp, "hub");
// The hub holds the fixture as the real model's files: its weights under the 8-bit name the manifest installs.
const served = installFixtureEmbedder(hubRoot, "Xenova/all-MiniLM-L6-v2");
fs.renameSync(path.join(served, "onnx", "model.onnx"), path.join(served, "onnx", "model_quantized.onnx"));
const hub = await startTestHub(hubRoot);
afterAll(() => {
  hub.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test("models fetch installs Xenova/all-MiniLM-L6-v2 from the manifest, verify passes, and themes use it", async () => {
  const modelsDir = path.join(tmp, "models");
  expect((await selectEmbedder({ modelsDir })).id).toBe("sif-wink-100d");
  const models = selectModels(await loadManifest(), ["Xenova/all-MiniLM-L6-v2"]);
  const files = await installModels({ modelsDir, models, source: { kind: "hub", baseUrl: hub.url } });
  expect(files.map((f) => f.path).sort()).toEqual(["config.json", "onnx/model_quantized.onnx", "tokenizer.json", "tokenizer_config.json"]);
  const report = await verifyModels(modelsDir, models);
  expect(hasProblems(report)).toBe(false);
  const engine = await selectEmbedder({ modelsDir });
  expect([engine.id, engine.dimensions]).toEqual(["Xenova/all-MiniLM-L6-v2", 32]);
  const [v] = await engine.embedBatch(["The parcel arrived late."]);
  expect(v!.reduce((s, x) => s + x * x, 0)).toBeCloseTo(1, 5);
  // A file changed after the first fetch recorded its hash: verify reports it.
  fs.appendFileSync(path.join(modelsDir, "Xenova/all-MiniLM-L6-v2/tokenizer_config.json"), " ");
  expect(hasProblems(await verifyModels(modelsDir, models))).toBe(true);
});
