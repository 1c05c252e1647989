/**
 * @module ai/protocol
 * The messages between the HTTP thread (`inference-client.ts`) and the inference worker
 * (`worker.ts`). Plain structured-cloneable objects; every request carries an `id` that its one
 * reply echoes. The worker answers every request exactly once, with a result or an error.
 */
import type { AnalyseOptions, AnalysisResult } from "./insights/index.ts";
import type { BuildOptions, SeedTheme, ThemeBuild, ThemeInput } from "./themes/build.ts";
import type { TranscriptSegment } from "./asr.ts";

export type { AnalyseOptions, AnalysisResult } from "./insights/index.ts";

/** Queue class: "live" (a respondent is waiting, e.g. partial transcripts) runs before "batch" (jobs). */
export type Priority = "live" | "batch";

/** What the worker needs to find its models; sent once, before any request. */
export type WorkerConfig = {
  /** Folder holding model folders (`EARSHOT_MODELS_DIR`), absolute or relative to the cwd. */
  modelsDir: string;
  /** Whisper model id: a folder under `modelsDir` (e.g. `Xenova/whisper-tiny.en`). */
  asrModel: string;
  /** Sentiment model id under `modelsDir`; when its files are absent `analyse` uses the lexicon engine. */
  sentimentModel: string;
  /** Optional OpenAI-compatible endpoint on the LAN (`EARSHOT_LLM_URL`), used by `analyse`. */
  llmUrl: string | null;
  /** Model name sent to that endpoint (`EARSHOT_LLM_MODEL`). */
  llmModel: string | null;
  /** ONNX Runtime intra-op threads for Whisper (`EARSHOT_INFERENCE_THREADS`); null = runtime default. */
  threads: number | null;
  /** Voice-activity step before Whisper (`EARSHOT_VAD`, ai/vad.ts); absent = "energy". */
  vad?: "off" | "energy";
  /** Speech recognition engine (`EARSHOT_ASR_ENGINE`, ai/asr-engine.ts); absent = "auto". */
  asrEngine?: "auto" | "whispercpp" | "transformers";
  /**
   * Seconds without a transcription before the worker unloads Whisper (`EARSHOT_ASR_IDLE_UNLOAD_S`);
   * 0 or absent = never. The next transcription reloads it.
   */
  asrIdleUnloadS?: number;
  /**
   * The themes engine (`EARSHOT_EMBEDDING_MODEL`, ai/themes/select.ts): `auto`, `sif`, or a model
   * id under `modelsDir`. Selected once per worker; answer vectors and theme builds both use it.
   */
  embeddingModel: string;
};

/** Times of one transcription, in milliseconds. */
export type TranscribeTimings = {
  /** Container parsing + decoding + resampling to 16 kHz mono. */
  decodeMs: number;
  /** Loading the Whisper pipeline; 0 once it is loaded. */
  loadMs: number;
  /** Whisper itself (feature extraction + encoder + decoding). */
  asrMs: number;
};

/**
 * What a transcription yields. `text` is trimmed ("" for silence); `durationS` in seconds;
 * `language` the ISO 639-1 code Whisper transcribed in: the one asked for, the one it detected
 * (multilingual model, none asked), or `en` for an English-only model.
 */
export type TranscribeResult = {
  text: string;
  durationS: number;
  language: string | null;
  segments: TranscriptSegment[];
  /**
   * Whisper's English translation of the speech (its translate task, issue 24), when the request
   * asked for one and there was something to translate (a multilingual model, non-English
   * speech); else null. The transcript (`text`) stays what was said.
   */
  translation: string | null;
  timings: TranscribeTimings;
};

/** Whisper's segments of the transcript (ai/asr.ts `segmentsOf`). */
export type { TranscriptSegment };

/**
 * The answer's theme vector (issue 24): the embedder's id and its unit-length vector, and
 * `followUps`, one vector per follow-up text asked for (`embedFollowUps`), in that order.
 */
export type AnswerEmbedding = { engine: string; vector: Float32Array; followUps?: Float32Array[] };

/** An analysis with, when asked (`embed`), the answer's theme vector. */
export type AnalyseReply = AnalysisResult & { embedding?: AnswerEmbedding };

export type { BuildOptions, ThemeBuild, ThemeInput };

/**
 * One answer of a theme build as stored: its vector and the engine that made it (null: none
 * yet), and `embedText`, the text its vector is made from (the analysed text: the answer with its
 * follow-ups, or its translation) — embedded again when `engine` is not the worker's; and its
 * answered follow-ups with their stored vectors (null: none stored, e.g. analysed before
 * migration 2026-12-03T0601), embedded again with the answer or when missing.
 */
export type StoredThemeInput = Omit<ThemeInput, "followUps"> & {
  engine: string | null;
  embedText: string;
  followUps?: { index: number; text: string; vector: Float32Array | null }[];
};

/** An operator's theme in a themes request: its examples are input ids (their vectors are the worker's). */
export type StoredSeed = Omit<SeedTheme, "examples"> & { exampleIds: string[] };

/** Build options as sent to the worker: seeds name their examples by input id. */
export type StoredBuildOptions = Omit<BuildOptions, "seeds"> & { seeds?: StoredSeed[] };

/**
 * A build from stored vectors: `engine` is the worker's embedder id, and `embedded` the fresh
 * vectors of the inputs it embedded again (store them with that engine id), and
 * `embeddedFollowUps` the follow-up answers it embedded (input id, follow-up index, vector).
 */
export type StoredThemeBuild = ThemeBuild & {
  embedded: { id: string; vector: Float32Array }[];
  embeddedFollowUps: { id: string; index: number; vector: Float32Array }[];
};

/** Machine-readable failure classes, so callers can tell "retry later" from "never works". */
export type InferenceErrorCode =
  /** The audio is empty, damaged or of an unknown format: retrying will not help. */
  | "AUDIO_DECODE"
  /** The recording is longer than the request's `maxDurationS` (the reply carries both lengths). */
  | "AUDIO_TOO_LONG"
  /** A model file is missing from the models directory; `earshot models fetch` fixes it. */
  | "MODEL_MISSING"
  /** The installed ASR model cannot transcribe the requested language (an English-only model, a non-English link). */
  | "LANGUAGE_UNSUPPORTED"
  /** The worker thread died (or was restarted) while the request was pending. */
  | "WORKER_DIED"
  /** The client was closed. */
  | "CLOSED"
  /** Anything else (model failed to load or run); the message says what. */
  | "INTERNAL";

/** Main thread → worker. */
export type WorkerRequest =
  | { type: "configure"; config: WorkerConfig }
  /**
   * Ends the worker once the request in hand is done: it drops what is queued and exits its
   * thread between requests, never during one (ai/inference-client.ts `retire`).
   */
  | { type: "stop" }
  /**
   * `maxDurationS`: the longest recording accepted, seconds (the question's max_duration + 2);
   * `language`: BCP 47 tag of the link's language, or null to let Whisper detect it.
   * `translate`: also run Whisper's translate task on the same audio, in the transcript's
   * language (`Asr.translate`: nothing for an English-only model or English speech).
   */
  | { type: "transcribe"; id: number; priority: Priority; audio: Uint8Array; maxDurationS: number; language?: string | null; translate?: boolean }
  /**
   * Insights of one answer (sentiment, topics, summary, clarity, follow-ups, custom fields).
   * `language`: the answer's BCP 47 tag (null: unknown, analysed as English); one no installed
   * engine knows is refused with LANGUAGE_UNSUPPORTED (ai/insights-languages.ts). `embed`: also
   * return the text's theme vector (the worker's embedder, `embeddingModel`), and with
   * `embedFollowUps` one vector per of those texts (the answer's follow-up answers), same engine.
   */
  | {
      type: "analyse";
      id: number;
      priority: Priority;
      text: string;
      options: AnalyseOptions;
      language?: string | null;
      embed?: boolean;
      embedFollowUps?: string[];
    }
  /**
   * Builds one question's themes (ai/themes `buildThemes`) with the worker's embedder; inputs
   * whose vector is of another engine (or absent) are embedded again from their `embedText`.
   */
  | { type: "themes"; id: number; priority: Priority; inputs: StoredThemeInput[]; options: StoredBuildOptions };

/** Worker → main thread: exactly one per request id. */
export type WorkerReply =
  | { type: "result"; id: number; kind: "transcribe"; result: TranscribeResult }
  | { type: "result"; id: number; kind: "analyse"; result: AnalyseReply }
  | { type: "result"; id: number; kind: "themes"; result: StoredThemeBuild }
  /**
   * For AUDIO_DECODE, `message` is the AudioDecodeError's `reason`; AUDIO_TOO_LONG adds the
   * limit and the length found, in seconds.
   */
  | { type: "error"; id: number; code: InferenceErrorCode; message: string; limitS?: number; durationS?: number };
