/**
 * @module ai/inference-client
 * The HTTP thread's handle on the inference worker (`worker.ts`). The worker is started on the
 * first request, not at construction, and is held open only while requests are pending (it never
 * keeps the process alive on its own). If it dies, its pending requests reject with WORKER_DIED
 * and the next request starts a fresh one.
 */
import { AudioDecodeError, AudioTooLongError, MAX_RECORDING_S } from "./audio-common.ts";
import { disableOrtTelemetry } from "../runtime/onnxruntime.ts";
import type {
  AnalyseOptions,
  AnalyseReply,
  InferenceErrorCode,
  Priority,
  StoredBuildOptions,
  StoredThemeBuild,
  StoredThemeInput,
  TranscribeResult,
  WorkerConfig,
  WorkerReply,
  WorkerRequest,
} from "./protocol.ts";

export type {
  AnalyseOptions,
  AnalyseReply,
  AnalysisResult,
  AnswerEmbedding,
  BuildOptions,
  StoredBuildOptions,
  StoredSeed,
  StoredThemeBuild,
  StoredThemeInput,
  ThemeBuild,
  ThemeInput,
  TranscriptSegment,
  InferenceErrorCode,
  Priority,
  TranscribeResult,
  TranscribeTimings,
} from "./protocol.ts";

/** A request failed for a reason other than undecodable audio (that one is AudioDecodeError). */
export class InferenceError extends Error {
  readonly code: InferenceErrorCode;

  constructor(code: InferenceErrorCode, message: string) {
    super(message);
    this.name = "InferenceError";
    this.code = code;
  }
}

/** Where the worker finds its models; the ids are folders under `modelsDir`. */
export type InferenceClientOptions = {
  modelsDir: string;
  asrModel: string;
  sentimentModel: string;
  llmUrl?: string | null;
  llmModel?: string | null;
  /** ONNX Runtime intra-op threads for Whisper; null or absent = the runtime's default. */
  threads?: number | null;
  /** Voice-activity step before Whisper (`EARSHOT_VAD`, ai/vad.ts); default "energy". */
  vad?: "off" | "energy";
  /** Idle seconds before the worker unloads Whisper (`EARSHOT_ASR_IDLE_UNLOAD_S`); 0 or absent = never. */
  asrIdleUnloadS?: number;
  /** Speech recognition engine (`EARSHOT_ASR_ENGINE`, ai/asr-engine.ts); default "auto". */
  asrEngine?: "auto" | "whispercpp" | "transformers";
  /** The themes engine (`EARSHOT_EMBEDDING_MODEL`): `auto` (default), `sif`, or a model id. */
  embeddingModel?: string;
};

export type InferenceClient = {
  /**
   * Transcribes one recording (WAV, WebM/Opus or Ogg/Opus bytes; the bytes are copied).
   * `priority` "live" jumps ahead of queued "batch" requests (default "batch"); `maxDurationS`
   * is the longest recording accepted, seconds (default MAX_RECORDING_S; see `recordingLimitS`).
   * Resolves `{ text, durationS, language, segments, translation, timings }`: text trimmed ("" for
   * silence), seconds, milliseconds. `translate: true` also asks for Whisper's English translation
   * (`translation`; null for English speech, an English-only model, or silence).
   * @throws AudioTooLongError (a subclass of AudioDecodeError) when longer than `maxDurationS`;
   *   AudioDecodeError for empty, damaged or unknown audio (do not retry);
   *   InferenceError with code MODEL_MISSING (the message names the file and says to run
   *   `earshot models fetch`), WORKER_DIED, CLOSED or INTERNAL.
   */
  transcribe(
    audio: Uint8Array,
    opts?: { priority?: Priority; maxDurationS?: number; language?: string | null; translate?: boolean },
  ): Promise<TranscribeResult>;
  /**
   * Analyses one answer's text with the insights engine the worker holds (loaded once, from the
   * models directory only): `{ ai_insights: { sentiment, sentiment_score (−1..1), actionable,
   * key_topics, summary }, clarity (0..1), follow_up_questions (empty unless
   * `enableDynamicProbing` and clarity < threshold), custom_fields, engine: { sentiment
   * ("transformer:<id>" or "lexicon:vader"), text, llm } }`.
   * @param options the question's `evaluatorConfig`, `enableDynamicProbing` and `prompt`.
   * @param opts `priority` as for `transcribe` (default "batch"); `embed`: also the text's theme
   *   vector (`embedding`), and with `embedFollowUps` one vector per follow-up answer text
   *   (`embedding.followUps`, same engine, same request).
   * @throws InferenceError WORKER_DIED, CLOSED or INTERNAL; ordinary text never fails (the
   *   engine falls back to local results); LANGUAGE_UNSUPPORTED when `opts.language` is one no
   *   installed engine knows (ai/insights-languages.ts).
   */
  analyse(
    text: string,
    options?: AnalyseOptions,
    opts?: { priority?: Priority; language?: string | null; embed?: boolean; embedFollowUps?: string[] },
  ): Promise<AnalyseReply>;
  /**
   * Builds one question's themes in the worker (ai/themes/stored.ts `buildFromStored`, the
   * worker's embedder): `inputs` carry the answers' stored vectors and engines; those of another
   * engine are embedded again and come back in `embedded`. Float32Arrays come back copied.
   * @throws InferenceError WORKER_DIED, CLOSED or INTERNAL.
   */
  buildThemes(inputs: StoredThemeInput[], options?: StoredBuildOptions, opts?: { priority?: Priority }): Promise<StoredThemeBuild>;
  /**
   * Drops the current worker as a crash would for its callers (its pending requests reject with
   * WORKER_DIED at once); the next request starts a fresh one that reloads the models from disk.
   * The old thread ends once its request in hand is done (never cut short: see `retire`).
   */
  restartWorker(): void;
  /** Rejects pending requests with CLOSED and ends the worker once its request in hand is done; later calls reject with CLOSED. */
  close(): Promise<void>;
};

/** Bun's Worker also has ref()/unref() (the DOM typings in tsconfig hide them). */
type BunWorker = Worker & { ref(): void; unref(): void };

type Pending = { resolve: (result: never) => void; reject: (err: Error) => void };
type Job = Exclude<WorkerRequest, { type: "configure" } | { type: "stop" }>;

/**
 * How long a retired worker may take to finish its request in hand before it is terminated (ms):
 * past the longest transcription or themes build a healthy worker runs. A termination during
 * native inference can abort the whole process (see `retire`), so it is the last resort.
 */
const RETIRE_TIMEOUT_MS = 300_000;

/**
 * Creates the client; starts nothing until the first request.
 * @param opts models directory (absolute, or relative to the process's cwd) and model ids.
 */
export function createInferenceClient(opts: InferenceClientOptions): InferenceClient {
  const config: WorkerConfig = {
    modelsDir: opts.modelsDir,
    asrModel: opts.asrModel,
    sentimentModel: opts.sentimentModel,
    llmUrl: opts.llmUrl ?? null,
    llmModel: opts.llmModel ?? null,
    threads: opts.threads ?? null,
    vad: opts.vad ?? "energy",
    asrIdleUnloadS: opts.asrIdleUnloadS ?? 0,
    asrEngine: opts.asrEngine ?? "auto",
    embeddingModel: opts.embeddingModel ?? "auto",
  };
  const pending = new Map<number, Pending>();
  let worker: BunWorker | null = null;
  let nextId = 1;
  let isClosed = false;

  const failAll = (err: InferenceError): void => {
    const waiting = [...pending.values()];
    pending.clear();
    for (const p of waiting) p.reject(err);
  };

  /**
   * Ends a worker without cutting native work short: Worker.terminate() during an ONNX Runtime
   * run aborts the whole process (its C++ Node-API wrapper throws Napi::Error into a thread that
   * is gone: std::terminate; reproduced, and seen once in CI), so the worker is asked to exit
   * once its request in hand is done, and terminated only if it has not within RETIRE_TIMEOUT_MS.
   * It no longer keeps the process alive meanwhile. @returns when the worker's thread has ended
   */
  const retire = (w: BunWorker): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => w.terminate(), RETIRE_TIMEOUT_MS);
      (timer as unknown as { unref?: () => void }).unref?.();
      w.addEventListener(
        "close",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
      w.postMessage({ type: "stop" } satisfies WorkerRequest);
      w.unref();
    });

  /** Replaces the current worker (if it is `w`): its pending requests reject with `err` at once. */
  const stop = (w: BunWorker, err: InferenceError): Promise<void> => {
    if (worker !== w) return Promise.resolve(); // already replaced or stopped
    worker = null;
    failAll(err);
    return retire(w);
  };

  const settle = (w: BunWorker, message: WorkerReply): void => {
    const p = pending.get(message.id);
    if (p === undefined) return;
    pending.delete(message.id);
    if (pending.size === 0) w.unref();
    if (message.type === "result") p.resolve(message.result as never);
    else if (message.code === "AUDIO_TOO_LONG") p.reject(new AudioTooLongError(message.limitS ?? 0, message.durationS ?? 0));
    else if (message.code === "AUDIO_DECODE") p.reject(new AudioDecodeError(message.message));
    else p.reject(new InferenceError(message.code, message.message));
  };

  const start = (): BunWorker => {
    // ONNX Runtime's telemetry switch goes into the C environment from this thread, before the
    // worker that loads ONNX Runtime exists (runtime/preload.ts).
    disableOrtTelemetry();
    // This exact form is what `bun build --compile` resolves to the bundled worker entrypoint.
    const w = new Worker(new URL("./worker.ts", import.meta.url)) as BunWorker;
    w.onmessage = (event: MessageEvent<WorkerReply>) => settle(w, event.data);
    w.addEventListener("error", (event) => {
      void stop(w, new InferenceError("WORKER_DIED", `the inference worker failed: ${event.message}`));
    });
    w.addEventListener("close", () => {
      void stop(w, new InferenceError("WORKER_DIED", "the inference worker exited"));
    });
    w.postMessage({ type: "configure", config } satisfies WorkerRequest);
    return w;
  };

  /** Sends one request; the reply's result type is fixed by the request's type. */
  const send = <R>(makeRequest: (id: number) => Job): Promise<R> => {
    if (isClosed) return Promise.reject(new InferenceError("CLOSED", "the inference client is closed"));
    worker ??= start();
    const w = worker;
    const id = nextId++;
    return new Promise<R>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (result: never) => void, reject });
      w.ref();
      w.postMessage(makeRequest(id));
    });
  };

  return {
    transcribe(audio, requestOpts = {}) {
      const maxDurationS = requestOpts.maxDurationS ?? MAX_RECORDING_S;
      return send<TranscribeResult>((id) => ({
        type: "transcribe",
        id,
        priority: requestOpts.priority ?? "batch",
        audio,
        maxDurationS,
        language: requestOpts.language ?? null,
        ...(requestOpts.translate ? { translate: true } : {}),
      }));
    },

    analyse(text, options = {}, requestOpts = {}) {
      return send<AnalyseReply>((id) => ({
        type: "analyse",
        id,
        priority: requestOpts.priority ?? "batch",
        text,
        options,
        language: requestOpts.language ?? null,
        ...(requestOpts.embed ? { embed: true } : {}),
        ...(requestOpts.embed && requestOpts.embedFollowUps?.length ? { embedFollowUps: requestOpts.embedFollowUps } : {}),
      }));
    },

    buildThemes(inputs, options = {}, requestOpts = {}) {
      return send<StoredThemeBuild>((id) => ({ type: "themes", id, priority: requestOpts.priority ?? "batch", inputs, options }));
    },

    restartWorker() {
      if (worker !== null) void stop(worker, new InferenceError("WORKER_DIED", "the inference worker was restarted"));
    },

    async close() {
      isClosed = true;
      if (worker !== null) await stop(worker, new InferenceError("CLOSED", "the inference client was closed"));
    },
  };
}
