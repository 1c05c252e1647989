/**
 * @module ai/asr-files
 * Which files make a speech recognition model installed, per engine (`EARSHOT_ASR_ENGINE`,
 * ai/asr-engine.ts): transformers.js reads `<model>/config.json` and the ONNX files, whisper.cpp
 * `<model>/ggml-model.bin`. Light on purpose (node:fs only): the server's start-up warning,
 * `/healthz` and the resumption of parked transcriptions ask it from the main thread.
 */
import fs from "node:fs";
import path from "node:path";

/** The ggml model's file name inside the model's folder (`earshot models fetch` installs it there). */
export const GGML_MODEL_FILE = "ggml-model.bin";

/**
 * True when `<modelsDir>/<model>` holds what `engine` needs: `config.json` for transformers.js,
 * `ggml-model.bin` for whisper.cpp, either for `auto`.
 */
export function isAsrModelInstalled(modelsDir: string, model: string, engine: "auto" | "whispercpp" | "transformers" = "auto"): boolean {
  const has = (file: string) => fs.existsSync(path.join(modelsDir, model, file));
  if (engine === "transformers") return has("config.json");
  if (engine === "whispercpp") return has(GGML_MODEL_FILE);
  return has("config.json") || has(GGML_MODEL_FILE);
}
