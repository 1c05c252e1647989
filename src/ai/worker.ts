/**
 * @module ai/worker
 * The inference worker thread's entry (a separate entrypoint of `bun build --compile`). It keeps
 * decoding, Whisper and the insights engine off the HTTP thread, runs one request at a time —
 * "live" before "batch", first come first served within each — and answers every request
 * exactly once. A failure is sent back as that request's error; the worker itself keeps running.
 * Both models load lazily, once per worker, and only from the models directory.
 */
import "../runtime/preload.ts";
import { trimMallocHeap } from "../runtime/malloc-trim.ts";
import path from "node:path";
import { LanguageUnsupportedError, ModelMissingError, type Asr } from "./asr.ts";
import { createAsrEngine } from "./asr-engine.ts";
import { GgmlFileError } from "./whispercpp/ggml-file.ts";
import { insightsSupportLanguage } from "./insights-languages.ts";
import { AudioDecodeError, AudioTooLongError, decodeAudio } from "./audio.ts";
import type { InsightsEngine } from "./insights/index.ts";
import type { InferenceErrorCode, WorkerConfig, WorkerReply, WorkerRequest } from "./protocol.ts";
import type { SelectedEmbedder } from "./themes/select.ts";

declare var self: Worker;

type Job = Exclude<WorkerRequest, { type: "configure" } | { type: "stop" }>;

const live: Job[] = [];
const batch: Job[] = [];
let config: WorkerConfig | null = null;
let asr: Asr | null = null;
let insights: Promise<InsightsEngine> | null = null;
// The themes engine the configuration selects (ai/themes/select.ts: an installed sentence model,
// else the SIF engine and its 50k word vectors), loaded on the first request that needs it.
let embedder: Promise<SelectedEmbedder> | null = null;
const themesEngine = () => import("./themes/index.ts");
const loadEmbedder = (cfg: WorkerConfig): Promise<SelectedEmbedder> =>
  (embedder ??= themesEngine().then((m) =>
    m.selectEmbedder({ modelsDir: cfg.modelsDir, choice: cfg.embeddingModel, onWarning: (line) => console.warn(`earshot worker: ${line}`) }),
  ));
let isDraining = false;
// Set by a "stop" request: the thread exits once the request in hand is done.
let isStopping = false;
// Unloads Whisper after `asrIdleUnloadS` seconds without work (armed when the queues empty).
let idleTimer: ReturnType<typeof setTimeout> | null = null;

const reply = (message: WorkerReply): void => self.postMessage(message);

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const message = event.data;
  if (message.type === "configure") {
    // One absolute folder for both loaders: transformers.js keeps `env.localModelPath` per thread.
    config = { ...message.config, modelsDir: path.resolve(message.config.modelsDir) };
    asr = createAsrEngine(config.modelsDir, config.asrModel, config.threads, config.vad ?? "energy", config.asrEngine ?? "auto", (line) =>
      console.warn(`earshot worker: ${line}`),
    );
    insights = null;
    embedder = null;
    return;
  }
  if (message.type === "stop") {
    // Never exit (or be terminated) while ONNX Runtime or whisper.cpp works on a request: their
    // native callbacks would land in a thread that is gone, and ONNX Runtime's C++ wrapper then
    // aborts the whole process (std::terminate on a Napi::Error). So: drop the queue (the client
    // has rejected those requests already), finish the request in hand, then exit.
    isStopping = true;
    live.length = 0;
    batch.length = 0;
    if (idleTimer !== null) clearTimeout(idleTimer);
    idleTimer = null;
    if (!isDraining) process.exit(0);
    return;
  }
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = null;
  (message.priority === "live" ? live : batch).push(message);
  // Deferred so that messages posted together are all queued before the first one is picked.
  if (!isDraining) setTimeout(drain, 0);
};

async function drain(): Promise<void> {
  if (isDraining) return;
  isDraining = true;
  try {
    for (let job = live.shift() ?? batch.shift(); job !== undefined; job = live.shift() ?? batch.shift()) {
      await run(job);
    }
  } finally {
    isDraining = false;
    if (isStopping) process.exit(0); // between requests: no native work is in flight
    armIdleUnload();
  }
}

/** After `asrIdleUnloadS` idle seconds the Whisper model goes; the next transcription reloads it. */
function armIdleUnload(): void {
  const idleS = config?.asrIdleUnloadS ?? 0;
  if (idleS <= 0 || asr === null) return;
  if (idleTimer !== null) clearTimeout(idleTimer);
  const engine = asr;
  idleTimer = setTimeout(() => {
    idleTimer = null;
    // Only when still idle: a request queued meanwhile cleared the timer, but be sure.
    if (isDraining || live.length > 0 || batch.length > 0) return;
    engine
      .unload()
      .then(() => trimMallocHeap()) // the freed weights go back to the system, not only to malloc
      .catch((err: unknown) => console.warn(`earshot worker: unloading the speech model failed: ${(err as Error).message}`));
  }, idleS * 1000);
}

async function run(job: Job): Promise<void> {
  try {
    if (config === null || asr === null) throw new Error("the worker got a request before its configuration");
    if (job.type === "analyse") {
      if (!insightsSupportLanguage(config.modelsDir, config.sentimentModel, job.language)) {
        throw new UnsupportedInsightsLanguage(job.language ?? "", config.sentimentModel);
      }
      const engine = await (insights ??= loadInsights(config));
      const result = await engine.analyse(job.text, job.options);
      if (job.embed) {
        const e = await loadEmbedder(config);
        // The answer's vector and its follow-up answers' (issue 24), in one batch for a model.
        const texts = [job.text, ...(job.embedFollowUps ?? [])];
        const [vector, ...followUps] = e.embed ? texts.map((t) => e.embed!(t)) : await e.embedBatch(texts);
        const embedding = { engine: e.id, vector: vector!, ...(job.embedFollowUps ? { followUps } : {}) };
        reply({ type: "result", id: job.id, kind: "analyse", result: { ...result, embedding } });
      } else reply({ type: "result", id: job.id, kind: "analyse", result });
      return;
    }
    if (job.type === "themes") {
      const [e, { buildFromStored }] = await Promise.all([loadEmbedder(config), import("./themes/stored.ts")]);
      reply({ type: "result", id: job.id, kind: "themes", result: await buildFromStored(job.inputs, job.options, e) });
      return;
    }
    const decodeStart = performance.now();
    const audio = await decodeAudio(job.audio, { maxDurationS: job.maxDurationS });
    const decodeMs = performance.now() - decodeStart;
    const { text, language, segments, loadMs, asrMs } = await asr.transcribe(audio.pcm, { language: job.language ?? null, durationS: audio.durationS });
    // The English translation of non-English speech (issue 24), from the same decoded audio, in
    // the language just transcribed (no second detection); null for English or an English-only model.
    const translateStart = performance.now();
    const translated = job.translate && text !== "" ? await asr.translate(audio.pcm, { language, durationS: audio.durationS }) : null;
    const translation = translated && translated.text !== "" ? translated.text : null;
    reply({
      type: "result",
      id: job.id,
      kind: "transcribe",
      result: {
        text,
        durationS: audio.durationS,
        language,
        segments,
        translation,
        timings: { decodeMs, loadMs, asrMs: asrMs + (translated ? performance.now() - translateStart : 0) },
      },
    });
  } catch (err) {
    const message = err instanceof AudioDecodeError ? err.reason : err instanceof Error ? err.message : String(err);
    const lengths = err instanceof AudioTooLongError ? { limitS: err.limitS, durationS: err.durationS } : {};
    reply({ type: "error", id: job.id, code: codeOf(err), message, ...lengths });
  }
}

/**
 * The insights engine, imported on first use so that a worker that only transcribes never loads
 * the NLP model. The engine itself picks the transformer sentiment model when its files are in
 * the models directory, else the lexicon, and reports which one answered.
 */
async function loadInsights(cfg: WorkerConfig): Promise<InsightsEngine> {
  try {
    const { createInsightsEngine } = await import("./insights/index.ts");
    return createInsightsEngine({
      modelsDir: cfg.modelsDir,
      sentimentModel: cfg.sentimentModel,
      llmUrl: cfg.llmUrl,
      llmModel: cfg.llmModel,
      onWarning: (line) => console.warn(`earshot worker: ${line}`),
    });
  } catch (err) {
    insights = null; // let a later request try again
    throw err;
  }
}

/** No installed insights engine knows the answer's language (ai/insights-languages.ts). */
class UnsupportedInsightsLanguage extends Error {
  constructor(language: string, sentimentModel: string) {
    super(
      `No installed insights engine knows the language "${language}" (the sentiment model "${sentimentModel}" and the built-in engines are English only; a multilingual one: earshot models fetch --model Xenova/twitter-xlm-roberta-base-sentiment, then EARSHOT_SENTIMENT_MODEL).`,
    );
  }
}

function codeOf(err: unknown): InferenceErrorCode {
  if (err instanceof AudioTooLongError) return "AUDIO_TOO_LONG";
  if (err instanceof AudioDecodeError) return "AUDIO_DECODE";
  // A damaged ggml file is fixed the same way as a missing one: `earshot models fetch`.
  if (err instanceof ModelMissingError || err instanceof GgmlFileError) return "MODEL_MISSING";
  if (err instanceof LanguageUnsupportedError || err instanceof UnsupportedInsightsLanguage) return "LANGUAGE_UNSUPPORTED";
  return "INTERNAL";
}

// Last resort: a stray rejection must not end the thread that serves every later request.
self.addEventListener("unhandledrejection", (event) => event.preventDefault());
