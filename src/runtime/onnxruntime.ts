/**
 * @module runtime/onnxruntime
 * Makes `onnxruntime-node` (under `@huggingface/transformers`) load and stay quiet, from source
 * and inside the compiled binary alike.
 *
 * - The binary embeds `onnxruntime_binding.node`, which Bun extracts to `$TMPDIR` and opens; its
 *   loader then looks for `libonnxruntime.so.1` beside that temporary file and fails. Opening
 *   our embedded copy of the library first (`bun:ffi` `dlopen`) puts its soname in the process,
 *   so the binding's dependency is already satisfied. Bun extracts it to
 *   `$TMPDIR/.bun-<euid>-<hash>.so` once and reuses it on later starts.
 * - ONNX Runtime 1.30 on Linux starts telemetry (a store under `~/.cache/Microsoft` and HTTPS
 *   uploads) unless the C environment holds `ORT_DISABLE_TELEMETRY`. transformers.js assigns it
 *   to `process.env`, which Bun does not copy into the C environment, so we `setenv` it in libc.
 */
import { dlopen } from "bun:ffi";
import os from "node:os";
import ortLibraryPath from "onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1" with { type: "file" };

const TELEMETRY_SWITCH = "ORT_DISABLE_TELEMETRY";

const cString = (s: string): Buffer => Buffer.from(`${s}\0`, "utf8");

let isTelemetryOff = false;

/**
 * Sets `ORT_DISABLE_TELEMETRY=1` in the C environment unless it is already set there. Call it
 * before ONNX Runtime loads. `setenv` is not thread-safe, so the main thread should call it
 * first, before any worker exists (a worker then finds the variable set and writes nothing). Returns false when libc
 * cannot be reached (non-glibc systems), in which case the variable must come from outside.
 */
export function disableOrtTelemetry(): boolean {
  if (isTelemetryOff) return true;
  try {
    const libc = dlopen("libc.so.6", {
      getenv: { args: ["ptr"], returns: "ptr" },
      setenv: { args: ["ptr", "ptr", "i32"], returns: "i32" },
    });
    try {
      if (libc.symbols.getenv(cString(TELEMETRY_SWITCH))) return (isTelemetryOff = true);
      // In a worker this only happens when the main thread did not set it first; writing now is
      // still better than telemetry.
      return (isTelemetryOff = libc.symbols.setenv(cString(TELEMETRY_SWITCH), cString("1"), 0) === 0);
    } finally {
      libc.close();
    }
  } catch {
    return false;
  }
}

let isOrtLibraryLoaded = false;

/**
 * Inside the compiled binary, opens the embedded `libonnxruntime.so.1` so that the embedded
 * `onnxruntime_binding.node` can link against it. No-op from source, where the binding finds the
 * library beside itself in `node_modules`. Sets the telemetry switch first ({@link disableOrtTelemetry}), from
 * source too. Idempotent.
 * @throws Error naming `$TMPDIR` when the library cannot be opened (Bun extracts it there first,
 *   so the folder must be writable and allow executable mappings)
 */
export function loadEmbeddedOrtLibrary(): void {
  disableOrtTelemetry();
  if (isOrtLibraryLoaded || !Bun.isStandaloneExecutable) return;
  try {
    // Any exported symbol will do: dlopen needs one, and the handle stays open for the process.
    dlopen(ortLibraryPath, { OrtGetApiBase: { args: [], returns: "ptr" } });
  } catch (error) {
    throw new Error(
      `cannot load the embedded ONNX Runtime: Bun extracts it to TMPDIR (${os.tmpdir()}), which must be writable and not mounted noexec (${String(error)})`,
      { cause: error },
    );
  }
  isOrtLibraryLoaded = true;
}
