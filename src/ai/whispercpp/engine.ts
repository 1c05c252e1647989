/**
 * @module ai/whispercpp/engine
 * The whisper.cpp engine behind the one ASR interface (ai/asr.ts `Asr`; issue 27,
 * docs/decisions/asr-engine.md): the model is `<modelsDir>/<model>/ggml-model.bin`, checked
 * (ggml-file.ts) and loaded once by the addon (addon.ts), off the JS thread; `whisper_full`
 * windows long audio itself (30 s windows moved on by the predicted timestamps), so the whole
 * VAD-cut recording is passed at once. Same rules as the transformers engine: English-only
 * models refuse other languages, a multilingual one detects the language when none is asked,
 * `translate` is null for English or an English-only model, segment times are in the ORIGINAL
 * recording after the silence cut.
 */
import os from "node:os";
import path from "node:path";
import { GGML_MODEL_FILE } from "../asr-files.ts";
import { TARGET_SAMPLE_RATE_HZ } from "../audio.ts";
import { type Asr, type AsrResult, LanguageUnsupportedError, noSpeechResult, primarySubtag, segmentsOf, toSourceSegments, type VadMode } from "../asr.ts";
import { skipSilence } from "../vad.ts";
import { loadWhisperAddon, type WhisperAddon, type WhisperModelHandle } from "./addon.ts";
import { checkGgmlFile, type GgmlHeader } from "./ggml-file.ts";

export { GGML_MODEL_FILE };

/** The ggml file of `model` under `modelsDir`. */
export const ggmlModelPath = (modelsDir: string, model: string): string => path.join(path.resolve(modelsDir), model, GGML_MODEL_FILE);

type Loaded = { addon: WhisperAddon; handle: WhisperModelHandle; header: GgmlHeader };

/**
 * Prepares (loading nothing yet) whisper.cpp on `<modelsDir>/<model>/ggml-model.bin` with
 * `threads` compute threads (null: all cores) and the VAD step `vad`.
 * @throws nothing here; `transcribe`/`translate` throw ModelMissingError (no file),
 *   GgmlFileError (damaged file), LanguageUnsupportedError, or Error (addon unavailable, whisper.cpp failure)
 */
export function createWhisperCppAsr(modelsDir: string, model: string, threads: number | null, vad: VadMode): Asr {
  const file = ggmlModelPath(modelsDir, model);
  const nThreads = threads ?? Math.max(1, os.availableParallelism());
  let loading: Promise<Loaded> | null = null;

  const load = async (): Promise<Loaded> => {
    const header = checkGgmlFile(file);
    const { addon } = loadWhisperAddon();
    return { addon, header, handle: await addon.load(file) };
  };

  /** The ISO 639-1 code to decode in (null: detect), by the rules of the module comment. */
  const languageFor = (multilingual: boolean, requested: string | null | undefined, addon: WhisperAddon | null): string | null => {
    const asked = primarySubtag(requested);
    if (!multilingual) {
      if (asked && asked !== "en") throw new LanguageUnsupportedError(model, requested!, true);
      return "en";
    }
    if (asked && addon && addon.langId(asked) < 0) throw new LanguageUnsupportedError(model, requested!, false);
    return asked;
  };

  const run = async (
    original: Float32Array,
    opts: { language?: string | null; durationS?: number },
    task: "transcribe" | "translate",
  ): Promise<AsrResult | null> => {
    const durationS = opts.durationS ?? original.length / TARGET_SAMPLE_RATE_HZ;
    const started = performance.now();
    const cut = vad === "energy" ? skipSilence(original, TARGET_SAMPLE_RATE_HZ) : null;
    if (cut && cut.pieces.length === 0) {
      // The language rules from the file's header.
      return noSpeechResult(task, started, () => {
        let header: GgmlHeader;
        try {
          header = checkGgmlFile(file);
        } catch {
          return primarySubtag(opts.language); // an absent or damaged file is reported by the first request with speech
        }
        return languageFor(header.multilingual, opts.language, null);
      });
    }
    const pcm = cut ? cut.pcm : original;
    const loadStart = performance.now();
    const wasLoaded = loading !== null;
    loading ??= load().catch((err: unknown) => {
      loading = null; // a later call tries again (e.g. after `earshot models fetch`)
      throw err;
    });
    const { addon, handle, header } = await loading;
    const loadMs = wasLoaded ? 0 : performance.now() - loadStart;
    const asrStart = performance.now();
    if (task === "translate" && !header.multilingual) return null;
    const asked = languageFor(header.multilingual, opts.language, addon);
    if (task === "translate" && asked === "en") return null;
    const out = await addon.transcribe(handle, pcm, { language: asked ?? "auto", translate: task === "translate", threads: nThreads });
    const language = asked ?? out.language;
    // Detected as English: there was nothing to translate (whisper.cpp detected and decoded at once).
    if (task === "translate" && (!language || language === "en")) return null;
    const whisperS = pcm.length / TARGET_SAMPLE_RATE_HZ;
    const chunks = out.segments.map((s) => ({ text: s.text, timestamp: [s.start_s, s.end_s] as [number, number] }));
    const text = chunks
      .map((c) => c.text.trim())
      .filter((t) => t !== "")
      .join(" ");
    const cutSegments = segmentsOf(chunks, text, cut ? whisperS : durationS);
    const segments = cut ? toSourceSegments(cutSegments, cut.pieces, durationS) : cutSegments;
    return { text, language, segments, loadMs, asrMs: performance.now() - asrStart, whisperS };
  };

  return {
    transcribe: async (pcm, opts = {}) => (await run(pcm, opts, "transcribe"))!,
    translate: (pcm, opts = {}) => run(pcm, opts, "translate"),
    // Resolves once the weights are freed (after a running call, which holds them, ends).
    unload: async () => {
      const current = loading;
      loading = null;
      await current?.then(
        (l) => l.addon.free(l.handle),
        () => {},
      );
    },
  };
}
