/**
 * @module runtime/preload
 * Side effects that must run before `@huggingface/transformers` (and so ONNX Runtime) is
 * evaluated. Import it first: `import "../runtime/preload.ts";` as the first line of
 * `src/ai/worker.ts`, and `import "./runtime/preload.ts";` as the first line of `src/cli.ts`
 * (the main thread sets the C environment before any worker thread exists). ES modules run
 * their imports in order, so the bundle keeps this ahead of transformers.
 */
import { isMainThread } from "node:worker_threads";
import { disableOrtTelemetry, loadEmbeddedOrtLibrary } from "./onnxruntime.ts";

disableOrtTelemetry();
try {
  loadEmbeddedOrtLibrary();
} catch (error) {
  // In the inference worker the error stands: the worker fails and transcription reports it.
  if (!isMainThread) throw error;
  // The main thread only loads it early for commands that run a model in-process; the API and
  // every other command work without it, so warn and go on.
  console.error(`earshot: warning: ${(error as Error).message}`);
}
