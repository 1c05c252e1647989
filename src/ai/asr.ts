/**
 * @module ai/asr
 * Whisper through @huggingface/transformers, loaded only from the models directory (DESIGN §1:
 * nothing is downloaded at run time). Meant to run inside the inference worker: the pipeline is
 * built lazily, once, and kept; a failed load is forgotten so a later call can try again (e.g.
 * after `earshot models fetch`).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { AutomaticSpeechRecognitionPipeline } from "@huggingface/transformers";
import { TARGET_SAMPLE_RATE_HZ } from "./audio.ts";
import { installedWeights } from "./model-weights.ts";

/** Whisper sees 30 s at a time; longer audio is cut into overlapping windows. */
const WHISPER_WINDOW_S = 30;
const WINDOW_STRIDE_S = 5;

/** A model file is not on disk. `path` is the missing file or folder. */
export class ModelMissingError extends Error {
  readonly path: string;

  constructor(missingPath: string, what: string) {
    super(`${what} not found at "${missingPath}". Run \`earshot models fetch\` to install the models.`);
    this.name = "ModelMissingError";
    this.path = missingPath;
  }
}

/** Transcribes 16 kHz mono PCM (from `decodeAudio`); `loadMs` is the one-time pipeline load (0 afterwards). */
export type Asr = {
  transcribe(pcm: Float32Array): Promise<{ text: string; loadMs: number; asrMs: number }>;
};

/**
 * Prepares (without loading anything yet) Whisper from `<modelsDir>/<model>` (with `threads`
 * ONNX Runtime intra-op threads, or the runtime's default when null), laid out like the
 * Hugging Face repos (`config.json`, tokenizer files, `onnx/encoder_model*.onnx`, …).
 * @throws nothing here; `transcribe` throws ModelMissingError for absent files and Error for
 *   models that fail to load or run.
 */
export function createAsr(modelsDir: string, model: string, threads: number | null = null): Asr {
  const root = path.resolve(modelsDir);
  let loading: Promise<AutomaticSpeechRecognitionPipeline> | null = null;

  const load = async (): Promise<AutomaticSpeechRecognitionPipeline> => {
    const modelDir = path.join(root, model);
    if (!existsSync(modelDir)) throw new ModelMissingError(modelDir, `ASR model folder for "${model}"`);
    // Imported here, not at the top: a library that cannot load (onnxruntime, sharp) then fails
    // this request with a message instead of killing the worker at start.
    const { env, pipeline } = await import("@huggingface/transformers");
    env.allowRemoteModels = false;
    env.allowLocalModels = true; // the library turns this off where it thinks it is in a browser worker
    env.localModelPath = root + path.sep;
    try {
      // Fewer intra-op threads than cores leaves a core to the HTTP thread (bench/asr.ts: on 2
      // cores, 1 thread was also faster than 2, as ORT's spinning threads compete with JS).
      const session_options = threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : undefined;
      return await pipeline("automatic-speech-recognition", model, { dtype: installedWeights(modelDir, "encoder_model") ?? "q8", ...(session_options ? { session_options } : {}) });
    } catch (err) {
      throw asMissingFile(err) ?? err;
    }
  };

  return {
    async transcribe(pcm) {
      const loadStart = performance.now();
      const wasLoaded = loading !== null;
      loading ??= load().catch((err: unknown) => {
        loading = null;
        throw err;
      });
      const asr = await loading;
      const loadMs = wasLoaded ? 0 : performance.now() - loadStart;
      const asrStart = performance.now();
      const isLong = pcm.length / TARGET_SAMPLE_RATE_HZ > WHISPER_WINDOW_S;
      const output = await asr(pcm, isLong ? { chunk_length_s: WHISPER_WINDOW_S, stride_length_s: WINDOW_STRIDE_S } : {});
      const text = (Array.isArray(output) ? output.map((o) => o.text).join(" ") : output.text).trim();
      return { text, loadMs, asrMs: performance.now() - asrStart };
    },
  };
}

/** Turns the library's "file was not found locally" (and ONNX "no such file") into ModelMissingError. */
function asMissingFile(err: unknown): ModelMissingError | null {
  const message = err instanceof Error ? err.message : String(err);
  const notFound = /not found locally at "([^"]+)"/.exec(message) ?? /Load model from (\S+) failed/.exec(message);
  return notFound?.[1] === undefined ? null : new ModelMissingError(notFound[1], "ASR model file");
}
