/**
 * @module runtime/preload
 * Side effects that must run before `@huggingface/transformers` (and so ONNX Runtime) is
 * evaluated. Import it first: `import "../runtime/preload.ts";` as the first line of
 * `src/ai/worker.ts`, and `import "./runtime/preload.ts";` as the first line of `src/cli.ts`. ES modules run
 * their imports in order, so the bundle keeps this ahead of transformers.
 */
import { disableOrtTelemetry, loadEmbeddedOrtLibrary } from "./onnxruntime.ts";

// The inference worker opens the embedded ONNX Runtime at once (an error there fails the worker,
// and transcription reports it). The main thread does not: opening it costs ~25 ms and ~20 MB of
// every start (bench/startup.ts), and only commands that run a model in-process need it — they
// call loadEmbeddedOrtLibrary() just before importing transformers.js. Likewise the telemetry
// switch: `bun:ffi`'s dlopen compiles its bindings (~20-40 ms), so the main thread sets it just
// before ONNX Runtime can load — before it starts the inference worker (ai/inference-client.ts)
// and in loadEmbeddedOrtLibrary() — not at every start.
if (!Bun.isMainThread) {
  disableOrtTelemetry();
  loadEmbeddedOrtLibrary();
}
