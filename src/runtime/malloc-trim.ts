/**
 * @module runtime/malloc-trim
 * Hands freed heap pages back to the system after a model is unloaded. ONNX Runtime frees a
 * session's weights and arena with `free`, but glibc keeps most of that memory mapped for reuse:
 * after unloading Whisper tiny the process still held ~320 MB, and `malloc_trim(0)` brought it to
 * ~230 MB (base: 470 → 315 MB) in 10–30 ms (docs/performance.md "Transcription").
 */
import { dlopen } from "bun:ffi";

/**
 * Calls glibc's `malloc_trim(0)`. Call it rarely (after an unload), never on a hot path.
 * @returns true when glibc released memory; false when it had nothing to give back or libc is not
 *   glibc (musl has no `malloc_trim`): never throws.
 */
export function trimMallocHeap(): boolean {
  try {
    const libc = dlopen("libc.so.6", { malloc_trim: { args: ["u64"], returns: "i32" } });
    try {
      return libc.symbols.malloc_trim(0) === 1;
    } finally {
      libc.close();
    }
  } catch {
    return false;
  }
}
