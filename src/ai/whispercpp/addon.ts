/**
 * @module ai/whispercpp/addon
 * The whisper.cpp addon (native/whisper/addon.cc) for this CPU: the best variant whose CPU
 * features /proc/cpuinfo lists (variants.ts), opened once per thread. Its log lines (one per
 * load and per window) go to stderr only with `EARSHOT_LOG_LEVEL=debug`.
 */
import { requireAddonFile } from "./addon-file.ts";
import { pickVariant, type WhisperVariant } from "./variants.ts";

/** A loaded model (an opaque handle of the addon). */
export type WhisperModelHandle = { readonly __whisperModel: unique symbol };

/** One segment as whisper.cpp returns it: seconds from the start of the audio it was given. */
export type AddonSegment = { start_s: number; end_s: number; text: string };

/** The addon's functions (native/whisper/addon.cc documents each). */
export type WhisperAddon = {
  version(): string;
  systemInfo(): string;
  setVerbose(on: boolean): void;
  /** Loads a ggml model off the JS thread; rejects with whisper.cpp's reason. */
  load(file: string): Promise<WhisperModelHandle>;
  isMultilingual(model: WhisperModelHandle): boolean;
  /** whisper.cpp's id of an ISO 639-1 code, -1 when it does not know the language. */
  langId(code: string): number;
  /**
   * `whisper_full` (greedy, its defaults) on 16 kHz mono PCM, off the JS thread; calls on one
   * model run one after another. `language` "auto" detects (multilingual models).
   */
  transcribe(
    model: WhisperModelHandle,
    pcm: Float32Array,
    opts: { language: string; translate: boolean; threads: number },
  ): Promise<{ language: string | null; segments: AddonSegment[] }>;
  /** Releases the weights (after a running call ends); later calls on the handle reject. */
  free(model: WhisperModelHandle): void;
};

let opened: { addon: WhisperAddon; variant: WhisperVariant } | null = null;
let failure: Error | null = null;

/**
 * The addon for this CPU, opened on the first call (later calls return the same, or throw the
 * same error).
 * @throws Error saying why whisper.cpp cannot run here: no variant fits this CPU or architecture,
 *   the variant was not built (from source), or the file does not open
 */
export function loadWhisperAddon(): { addon: WhisperAddon; variant: WhisperVariant } {
  if (opened) return opened;
  if (failure) throw failure;
  try {
    const variant = pickVariant();
    if (!variant) throw new Error(`no whisper.cpp build fits this CPU (${process.arch}; x86-64 needs SSE4.2)`);
    const addon = requireAddonFile(variant.file) as WhisperAddon;
    addon.setVerbose(process.env.EARSHOT_LOG_LEVEL === "debug");
    opened = { addon, variant };
    return opened;
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    throw failure;
  }
}
