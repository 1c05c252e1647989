/**
 * @module ai/asr
 * Whisper through @huggingface/transformers, loaded only from the models directory (DESIGN §1:
 * nothing is downloaded at run time). Meant to run inside the inference worker: the pipeline is
 * built lazily, once, and kept; a failed load is forgotten so a later call can try again (e.g.
 * after `earshot models fetch`).
 *
 * Languages (issue 17, docs/models.md "Languages"): a multilingual model (its
 * `generation_config.json` says `is_multilingual`) transcribes in the language asked for, or
 * detects it from the first 30 s when none is asked (transformers.js itself would assume English);
 * an English-only model (`*.en`) refuses any other language with {@link LanguageUnsupportedError}
 * instead of producing an English-sounding transcript of German speech.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AutomaticSpeechRecognitionPipeline } from "@huggingface/transformers";
import { TARGET_SAMPLE_RATE_HZ } from "./audio.ts";
import { transcribeWindows, WHISPER_WINDOW_S, type WhisperChunk, type WindowOutput } from "./asr-windows.ts";
import { skipRepeatedEncoderCache } from "./asr-kv-cache.ts";
import { installedWeights } from "./model-weights.ts";
import { type CutPiece, skipSilence, toSourceTime } from "./vad.ts";

/** Voice-activity step before Whisper (`EARSHOT_VAD`, ai/vad.ts): `energy` cuts pauses, `off` does not. */
export type VadMode = "off" | "energy";

/** A model file is not on disk. `path` is the missing file or folder. */
export class ModelMissingError extends Error {
  readonly path: string;

  constructor(missingPath: string, what: string) {
    super(`${what} not found at "${missingPath}". Run \`earshot models fetch\` to install the models.`);
    this.name = "ModelMissingError";
    this.path = missingPath;
  }
}

/** The ASR model cannot transcribe the language asked for; the message is for operators. */
export class LanguageUnsupportedError extends Error {
  constructor(model: string, language: string, englishOnly: boolean) {
    super(
      englishOnly
        ? `The speech recognition model "${model}" transcribes English only, and this link's language is "${language}". Install a multilingual model (earshot models fetch --model Xenova/whisper-base) and set EARSHOT_ASR_MODEL to it; this answer is not transcribed until then.`
        : `The speech recognition model "${model}" does not know the language "${language}" (Whisper's languages are ISO 639-1 codes such as de, fr, ar).`,
    );
    this.name = "LanguageUnsupportedError";
  }
}

/**
 * Transcribes 16 kHz mono PCM (from `decodeAudio`) in `language` (a BCP 47 tag; null or omitted:
 * detected by a multilingual model). `language` of the result is the ISO 639-1 code used; `loadMs`
 * is the one-time pipeline load (0 afterwards).
 * @throws LanguageUnsupportedError for a language the model cannot transcribe
 */
export type Asr = {
  transcribe(pcm: Float32Array, opts?: { language?: string | null; durationS?: number }): Promise<AsrResult>;
  /**
   * Whisper's own English translation (its `translate` task) of speech in `language` (as for
   * `transcribe`: asked, or detected when null), for the English engines to analyse and theme a
   * non-English answer (issue 24); the transcript stays what the respondent said.
   * @returns null when there is nothing to translate: the model is English-only, or the
   *   language is English. Otherwise `text` is English and `language` the source language.
   * @throws LanguageUnsupportedError for a language a multilingual model does not know.
   */
  translate(pcm: Float32Array, opts?: { language?: string | null; durationS?: number }): Promise<AsrResult | null>;
  /**
   * Frees the loaded model (its sessions and weights) so the idle process shrinks; the next
   * `transcribe` or `translate` loads it again (and reports that in `loadMs`). A no-op when
   * nothing is loaded. Call it between transcriptions, never during one (the worker does so
   * after `EARSHOT_ASR_IDLE_UNLOAD_S` idle seconds). Every engine implements it.
   */
  unload(): Promise<void>;
};

/** What a transcription or translation returns (see {@link Asr}). */
export type AsrResult = {
  text: string;
  language: string | null;
  segments: TranscriptSegment[];
  loadMs: number;
  asrMs: number;
  /** Seconds of audio Whisper was given after the silence was cut; 0 when it did not run. */
  whisperS: number;
};

/** One stretch of the transcript, seconds from the recording's start (DESIGN §12 `segments`). */
export type TranscriptSegment = { start_s: number; end_s: number; text: string };

/**
 * Whisper's segments (`return_timestamps: true` gives `chunks` of `{timestamp: [start, end], text}`;
 * the last end may be null: the recording's end). With no usable chunk — a model that emits no
 * timestamp tokens — one segment covers the whole recording: honest, never invented boundaries.
 * Every time is clamped to [0, durationS].
 * @param durationS the recording's length, seconds.
 */
export function segmentsOf(chunks: WhisperChunk[] | undefined, text: string, durationS: number): TranscriptSegment[] {
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const out: TranscriptSegment[] = [];
  for (const c of chunks ?? []) {
    const t = c.text.trim();
    const [start, end] = c.timestamp ?? [null, null];
    if (t === "" || typeof start !== "number" || !Number.isFinite(start)) continue;
    // Inside the recording whatever the engine says: whisper.cpp reads a segment's start from its
    // first token, which a model that opens without a timestamp token makes a text token (-1007 s seen).
    const from = Math.max(0, Math.min(start, durationS));
    const stop = typeof end === "number" && Number.isFinite(end) && end >= from ? end : durationS;
    out.push({ start_s: round(from), end_s: round(Math.min(Math.max(stop, from), durationS)), text: t });
  }
  if (out.length > 0 || text === "") return out;
  return [{ start_s: 0, end_s: round(durationS), text }];
}

/** What the pipeline's generation config says about languages. */
type WhisperGenerationConfig = { is_multilingual?: boolean | null; lang_to_id?: Record<string, number> | null; decoder_start_token_id?: number };

/**
 * The language of the first 30 s, as Whisper itself detects it: one decoder step after
 * `<|startoftranscript|>`, the most likely of the language tokens.
 */
async function detectLanguage(asr: AutomaticSpeechRecognitionPipeline, pcm: Float32Array): Promise<string | null> {
  const { Tensor } = await import("@huggingface/transformers");
  const model = asr.model as unknown as ((inputs: Record<string, unknown>) => Promise<{ logits: { data: Float32Array } }>) & {
    generation_config: WhisperGenerationConfig;
  };
  const config = model.generation_config;
  if (!config.lang_to_id || config.decoder_start_token_id === undefined) return null;
  const { input_features } = (await asr.processor(pcm.subarray(0, WHISPER_WINDOW_S * TARGET_SAMPLE_RATE_HZ))) as { input_features: unknown };
  const start = new Tensor("int64", BigInt64Array.from([BigInt(config.decoder_start_token_id)]), [1, 1]);
  const { logits } = await model({ input_features, decoder_input_ids: start });
  let best: string | null = null;
  let bestScore = -Infinity;
  for (const [token, id] of Object.entries(config.lang_to_id)) {
    const score = logits.data[id] ?? -Infinity;
    if (score > bestScore) [best, bestScore] = [token, score];
  }
  return best ? best.replace(/^<\|(.*)\|>$/, "$1") : null;
}

/**
 * Prepares (without loading anything yet) Whisper from `<modelsDir>/<model>` (with `threads`
 * ONNX Runtime intra-op threads, or the runtime's default when null), laid out like the
 * Hugging Face repos (`config.json`, tokenizer files, `onnx/encoder_model*.onnx`, …). With `vad`
 * "energy" long pauses are cut before Whisper and audio without speech is not transcribed at all
 * (empty text, no segments, the model not even loaded); segment times stay in the original audio.
 * @throws nothing here; `transcribe` throws ModelMissingError for absent files and Error for
 *   models that fail to load or run.
 */
export function createAsr(modelsDir: string, model: string, threads: number | null = null, vad: VadMode = "energy"): Asr {
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
      // Fewer intra-op threads than cores leaves a core to the HTTP thread; fixed, not raised when
      // idle: ORT fixes a session's pool at creation (docs/decisions/asr-threads.md).
      // `session.disable_quant_qdq`: ORT's QDQ rewrites slow the 8-bit decoder's per-token runs
      // (~18 % of the CPU time, for ~200 MB more RSS; docs/decisions/asr-transformers-tuning.md); no effect on fp32 files.
      const session_options = {
        ...(threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}),
        extra: { session: { disable_quant_qdq: "1" } },
      };
      const asr = await pipeline("automatic-speech-recognition", model, {
        dtype: installedWeights(modelDir, "encoder_model") ?? "q8",
        session_options,
      });
      skipRepeatedEncoderCache(asr); // a third less CPU per token (ai/asr-kv-cache.ts)
      return asr;
    } catch (err) {
      throw asMissingFile(err) ?? err;
    }
  };

  const run = async (
    original: Float32Array,
    opts: { language?: string | null; durationS?: number },
    task: "transcribe" | "translate",
  ): Promise<AsrResult | null> => {
    const durationS = opts.durationS ?? original.length / TARGET_SAMPLE_RATE_HZ;
    const vadStart = performance.now();
    const cut = vad === "energy" ? skipSilence(original, TARGET_SAMPLE_RATE_HZ) : null;
    if (cut && cut.pieces.length === 0) {
      // The language rules from the model's generation config on disk.
      return noSpeechResult(task, vadStart, () => {
        const onDisk = generationConfigOnDisk(path.join(root, model));
        return onDisk ? languageOf(model, onDisk, opts.language) : primarySubtag(opts.language);
      });
    }
    const pcm = cut ? cut.pcm : original;
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
    const config = (asr.model as unknown as { generation_config: WhisperGenerationConfig }).generation_config;
    // Translating needs a multilingual model (an English-only one has no translate task).
    if (task === "translate" && !config.is_multilingual) return null;
    const language = languageOf(model, config, opts.language) ?? (config.is_multilingual ? await detectLanguage(asr, pcm) : null);
    // English speech needs no translation; nor can speech whose language was not detected get one.
    if (task === "translate" && (!language || language === "en")) return null;
    const languageOptions = config.is_multilingual && language ? { language, task } : {};
    // Segment timestamps cost nothing extra: Whisper predicts them as tokens anyway.
    const transcribeWindow = async (audio: Float32Array) => (await asr(audio, { ...languageOptions, return_timestamps: true })) as WindowOutput;
    // Longer than one window: windows moved on by Whisper's timestamps (ai/asr-windows.ts).
    const { text, chunks } = isLong ? await transcribeWindows(pcm, TARGET_SAMPLE_RATE_HZ, transcribeWindow) : await transcribeWindow(pcm);
    const whisperS = pcm.length / TARGET_SAMPLE_RATE_HZ;
    const cutSegments = segmentsOf(chunks, text.trim(), cut ? whisperS : durationS);
    const segments = cut ? toSourceSegments(cutSegments, cut.pieces, durationS) : cutSegments;
    return { text: text.trim(), language, segments, loadMs, asrMs: performance.now() - asrStart, whisperS };
  };

  return {
    transcribe: async (pcm, opts = {}) => (await run(pcm, opts, "transcribe"))!,
    translate: (pcm, opts = {}) => run(pcm, opts, "translate"),
    async unload() {
      const loaded = loading;
      // Forgotten first: a request arriving meanwhile starts a fresh load instead of using this one.
      loading = null;
      const pipe = await loaded?.catch(() => null);
      await pipe?.dispose();
    },
  };
}

/**
 * The ISO 639-1 language to transcribe in for `requested` (a BCP 47 tag or null): `en` for an
 * English-only model, the requested one for a multilingual model, null when it is to be detected.
 * @throws LanguageUnsupportedError when the model cannot transcribe the requested language.
 */
function languageOf(model: string, config: WhisperGenerationConfig, requested: string | null | undefined): string | null {
  const asked = primarySubtag(requested);
  if (!config.is_multilingual) {
    if (asked && asked !== "en") throw new LanguageUnsupportedError(model, requested!, true);
    return "en";
  }
  if (asked && config.lang_to_id?.[`<|${asked}|>`] === undefined) throw new LanguageUnsupportedError(model, requested!, false);
  return asked;
}

/** The primary language subtag of a BCP 47 tag, lower-cased (`pt-BR` → `pt`); null for none. */
export function primarySubtag(tag: string | null | undefined): string | null {
  return tag ? tag.split("-")[0]!.toLowerCase() : null;
}

/**
 * The answer of either engine when the VAD step found no speech in the recording: Whisper is not
 * run (it would only hallucinate), nor is the model loaded. `translate` gets null; `transcribe` an
 * empty transcript whose language `language()` gives by the engine's rules, from what the model's
 * files on disk say.
 * @param startedMs `performance.now()` when the request began (`asrMs` counts from it)
 * @throws LanguageUnsupportedError from `language()`
 */
export function noSpeechResult(task: "transcribe" | "translate", startedMs: number, language: () => string | null): AsrResult | null {
  if (task === "translate") return null;
  return { text: "", language: language(), segments: [], loadMs: 0, asrMs: performance.now() - startedMs, whisperS: 0 };
}

/** The model folder's `generation_config.json`, or null when it is absent or unreadable. */
function generationConfigOnDisk(modelDir: string): WhisperGenerationConfig | null {
  try {
    return JSON.parse(readFileSync(path.join(modelDir, "generation_config.json"), "utf8")) as WhisperGenerationConfig;
  } catch {
    return null;
  }
}

/** Segments timed in the cut audio → timed in the original recording (`durationS` long). */
export function toSourceSegments(segments: TranscriptSegment[], pieces: CutPiece[], durationS: number): TranscriptSegment[] {
  const round = (x: number) => Math.round(Math.min(x, durationS) * 1000) / 1000;
  return segments.map((s) => {
    const start = toSourceTime(pieces, s.start_s, "start");
    // A zero-length segment at a cut would otherwise end before it starts.
    return { start_s: round(start), end_s: round(Math.max(start, toSourceTime(pieces, s.end_s, "end"))), text: s.text };
  });
}

/** Turns the library's "file was not found locally" (and ONNX "no such file") into ModelMissingError. */
function asMissingFile(err: unknown): ModelMissingError | null {
  const message = err instanceof Error ? err.message : String(err);
  const notFound = /not found locally at "([^"]+)"/.exec(message) ?? /Load model from (\S+) failed/.exec(message);
  return notFound?.[1] === undefined ? null : new ModelMissingError(notFound[1], "ASR model file");
}
