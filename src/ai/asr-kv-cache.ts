/**
 * @module ai/asr-kv-cache
 * Whisper's decoder key/value cache without the per-token copy of the encoder's part (issue 27).
 * The merged decoder (`decoder_model_merged.onnx`, optimum's layout: one graph, an If on
 * `use_cache_branch`) must give both branches the same outputs, so every cached step also returns
 * the cross-attention keys and values (`present.N.encoder.*`) it was handed, unchanged. ONNX
 * Runtime copies them into fresh JavaScript arrays at every token — 18 MB per token for tiny,
 * 37 MB for base — and transformers.js throws them away (it keeps the first step's, which do not
 * change). Asking the cached runs for only the outputs that are used ("fetches") removed a third
 * of the CPU time and ~330 MB of peak RSS for tiny (docs/decisions/asr-transformers-tuning.md).
 */

/** The part of an onnxruntime-common InferenceSession this needs. */
type Session = {
  outputNames: readonly string[];
  run(feeds: Record<string, { data?: ArrayLike<unknown> }>, ...rest: unknown[]): Promise<unknown>;
};

const ENCODER_PRESENT = /^present\.\d+\.encoder\./;

/**
 * Makes the pipeline's merged decoder return, on cached steps (`use_cache_branch` true), every
 * output but the encoder's key/values. The first step (no cache yet) still returns them: that is
 * where transformers.js takes them from, and it keeps them for the later steps.
 * @param pipeline a transformers.js Whisper pipeline (its `model.sessions`)
 * @returns true when the decoder was changed; false for another layout (nothing to skip)
 */
export function skipRepeatedEncoderCache(pipeline: unknown): boolean {
  const sessions = (pipeline as { model?: { sessions?: Record<string, Session> } }).model?.sessions;
  const decoder = sessions?.decoder_model_merged;
  if (!decoder || !decoder.outputNames.some((n) => ENCODER_PRESENT.test(n))) return false;
  const fetches = decoder.outputNames.filter((n) => !ENCODER_PRESENT.test(n));
  const run = decoder.run.bind(decoder);
  decoder.run = (feeds, ...rest) => {
    const isCachedStep = Boolean(feeds.use_cache_branch?.data?.[0]);
    // A run with options but no fetches passes them second; keep any caller's own fetches.
    return isCachedStep && rest.length === 0 ? run(feeds, fetches) : run(feeds, ...rest);
  };
  return true;
}
