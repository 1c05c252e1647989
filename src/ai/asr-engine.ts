/**
 * @module ai/asr-engine
 * Which engine transcribes (`EARSHOT_ASR_ENGINE`, issue 27, docs/models.md "Engines",
 * docs/decisions/asr-engine.md): whisper.cpp (ai/whispercpp/, a ggml model file) or
 * transformers.js + ONNX Runtime (ai/asr.ts, the ONNX files), both behind the one `Asr` interface.
 *
 * - `transformers`: always transformers.js.
 * - `whispercpp`: always whisper.cpp; a missing `ggml-model.bin` is ModelMissingError, an addon
 *   that cannot run here an Error saying why.
 * - `auto` (default): whisper.cpp when the model's folder holds `ggml-model.bin` and the addon
 *   opens on this CPU, else transformers.js. Decided at each call (cheap: one stat; the addon is
 *   opened once), so a ggml file fetched while the server runs is used from the next answer on.
 */
import fs from "node:fs";
import { type Asr, createAsr, type VadMode } from "./asr.ts";
import { loadWhisperAddon } from "./whispercpp/addon.ts";
import { createWhisperCppAsr, ggmlModelPath } from "./whispercpp/engine.ts";

/** `EARSHOT_ASR_ENGINE`'s values. */
export const ASR_ENGINES = ["auto", "whispercpp", "transformers"] as const;
export type AsrEngineChoice = (typeof ASR_ENGINES)[number];

/** The engine a call ran on (for logs and benches). */
export type AsrEngineName = "whispercpp" | "transformers";

/**
 * The ASR for `<modelsDir>/<model>` on the chosen engine (see the module comment); arguments as
 * ai/asr.ts `createAsr`, plus `engine` and `onNote` (a warning line when `auto` finds a ggml file
 * but whisper.cpp cannot run here; said once).
 * @returns an `Asr` whose `engineFor()` says which engine the next call would use, and whose
 *   `unload()` releases the weights of whichever engines are loaded (reloaded by the next call; for an idle timeout)
 */
export function createAsrEngine(
  modelsDir: string,
  model: string,
  threads: number | null = null,
  vad: VadMode = "energy",
  engine: AsrEngineChoice = "auto",
  onNote: (line: string) => void = () => {},
): Asr & { engineFor(): AsrEngineName } {
  let transformers: Asr | null = null;
  let whispercpp: ReturnType<typeof createWhisperCppAsr> | null = null;
  let lastNote = "";
  const note = (line: string) => {
    if (line !== lastNote) onNote(line);
    lastNote = line;
  };

  const engineFor = (): AsrEngineName => {
    if (engine !== "auto") return engine;
    const file = ggmlModelPath(modelsDir, model);
    if (!fs.existsSync(file)) return "transformers";
    try {
      loadWhisperAddon();
      return "whispercpp";
    } catch (err) {
      note(`speech recognition: transformers.js, as whisper.cpp cannot run here (${(err as Error).message})`);
      return "transformers";
    }
  };

  const pick = (): Asr => {
    if (engineFor() === "whispercpp") return (whispercpp ??= createWhisperCppAsr(modelsDir, model, threads, vad));
    return (transformers ??= createAsr(modelsDir, model, threads, vad));
  };

  return {
    transcribe: (pcm, opts) => pick().transcribe(pcm, opts),
    translate: (pcm, opts) => pick().translate(pcm, opts),
    engineFor,
    // Both: `auto` may have used either engine since the last unload (a ggml file fetched meanwhile).
    unload: async () => {
      await Promise.all([whispercpp?.unload(), transformers?.unload()]);
    },
  };
}
