/**
 * @module ai/model-weights
 * Which ONNX weights of a model folder transformers.js should load. The hub's ONNX exports keep
 * full-precision weights as `onnx/<name>.onnx` and 8-bit ones as `onnx/<name>_quantized.onnx`
 * (the library's `dtype: "q8"` suffix). `models/manifest.json` installs the 8-bit files; a
 * folder that also holds the full-precision file (a custom manifest, a hand copy, the test
 * fixtures) is loaded in full precision, the library's own default on CPU.
 */
import { existsSync } from "node:fs";
import path from "node:path";

/** The dtypes Earshot loads. */
export type WeightsDtype = "fp32" | "q8";

/**
 * The dtype to load `<modelDir>/onnx/<baseName>[_quantized].onnx` with.
 * @param modelDir the model's folder, e.g. `<models dir>/Xenova/whisper-tiny.en`.
 * @param baseName the ONNX graph's name without suffix, e.g. "encoder_model" or "model".
 * @returns "fp32" when `<baseName>.onnx` exists; else "q8" when `<baseName>_quantized.onnx`
 *   exists; else null (neither file is there).
 */
export function installedWeights(modelDir: string, baseName: string): WeightsDtype | null {
  const onnxDir = path.join(modelDir, "onnx");
  if (existsSync(path.join(onnxDir, `${baseName}.onnx`))) return "fp32";
  if (existsSync(path.join(onnxDir, `${baseName}_quantized.onnx`))) return "q8";
  return null;
}
