/**
 * @module test/helpers/whisper-addon
 * Makes sure the whisper.cpp addon is built before a test opens it: scripts/build-whisper.ts,
 * which returns at once when its cache is current (`npm test` has built it already). A first
 * build on a fresh checkout takes minutes (whisper.cpp and ggml from source).
 */
import { buildWhisperAddons } from "../../scripts/build-whisper.ts";

let built: Promise<string[]> | null = null;

/** Builds (or finds cached) the addon variants of this machine. @throws Error when the build fails */
export function ensureWhisperAddon(): Promise<string[]> {
  built ??= buildWhisperAddons();
  return built;
}
