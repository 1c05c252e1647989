/**
 * @module ai/asr-files.test
 * A speech model counts as installed per engine (issue 27): the ONNX folder's config.json for
 * transformers.js, ggml-model.bin for whisper.cpp, either for auto — so answers parked while a
 * ggml-only model was missing resume once it is fetched, and /healthz says "installed".
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { makeScratchDir } from "../../test/helpers/audio-fixtures.ts";
import { isAsrModelInstalled } from "./asr-files.ts";

const scratch = makeScratchDir();
afterAll(() => scratch.remove());

test("ggml-only, ONNX-only and empty model folders, for each engine", () => {
  mkdirSync(path.join(scratch.dir, "ggml"));
  writeFileSync(path.join(scratch.dir, "ggml", "ggml-model.bin"), "x");
  mkdirSync(path.join(scratch.dir, "onnx"));
  writeFileSync(path.join(scratch.dir, "onnx", "config.json"), "{}");
  mkdirSync(path.join(scratch.dir, "empty"));
  const installed = (model: string) => (["auto", "whispercpp", "transformers"] as const).map((e) => isAsrModelInstalled(scratch.dir, model, e));
  expect(installed("ggml")).toEqual([true, true, false]);
  expect(installed("onnx")).toEqual([true, false, true]);
  expect(installed("empty")).toEqual([false, false, false]);
});
