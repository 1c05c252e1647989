/**
 * @module ai/themes/select
 * Which themes engine answers (DESIGN §12, issue 24): the sentence-embedding model when one is
 * installed, else the SIF engine inside the binary. `EARSHOT_EMBEDDING_MODEL` (config
 * `embeddingModel`) chooses: `auto` (default) takes the first installed of
 * {@link SENTENCE_MODELS}; `sif` always the built-in engine; any other value is a model id (a
 * folder under the models directory). A chosen model that is missing or fails to load falls back
 * to the built-in engine with one warning, so themes always exist.
 */
import { createSifEmbedder, type BatchEmbedder, type Embedder } from "./embedder.ts";
import { hasSentenceModel, loadSentenceEmbedder } from "./sentence-embedder.ts";

/** The sentence models `auto` looks for, in order: the English one is ~3× faster. */
export const SENTENCE_MODELS = ["Xenova/all-MiniLM-L6-v2", "Xenova/paraphrase-multilingual-MiniLM-L12-v2"] as const;

/** `EARSHOT_EMBEDDING_MODEL` values that are not model ids. */
export const EMBEDDING_AUTO = "auto";
export const EMBEDDING_SIF = "sif";

/** The selected engine: `embed` is there for the SIF engine only (sentence-level quotes). */
export type SelectedEmbedder = BatchEmbedder & Partial<Pick<Embedder, "embed">>;

/**
 * The model id the choice names, when its files are installed; null: the built-in engine.
 * @param modelsDir the models directory.
 * @param choice `auto`, `sif`, or a model id.
 */
export function installedSentenceModel(modelsDir: string, choice: string): string | null {
  if (choice === EMBEDDING_SIF) return null;
  if (choice === EMBEDDING_AUTO) return SENTENCE_MODELS.find((id) => hasSentenceModel(modelsDir, id)) ?? null;
  return hasSentenceModel(modelsDir, choice) ? choice : null;
}

/**
 * Loads the engine the choice selects (see the module comment).
 * @param opts.modelsDir the models directory (EARSHOT_MODELS_DIR).
 * @param opts.choice `auto` (default), `sif`, or a model id.
 * @param opts.onWarning one line when a named model is not installed, or an installed one fails
 *   to load (the built-in engine answers then).
 * @returns the engine; never rejects.
 */
export async function selectEmbedder(opts: { modelsDir: string; choice?: string; onWarning?: (line: string) => void }): Promise<SelectedEmbedder> {
  const choice = opts.choice ?? EMBEDDING_AUTO;
  const model = installedSentenceModel(opts.modelsDir, choice);
  if (model === null) {
    if (choice !== EMBEDDING_AUTO && choice !== EMBEDDING_SIF) {
      opts.onWarning?.(`embedding model ${choice} is not installed in ${opts.modelsDir}; using the built-in engine`);
    }
    return createSifEmbedder();
  }
  try {
    return await loadSentenceEmbedder(opts.modelsDir, model);
  } catch (error) {
    opts.onWarning?.(`embedding model ${model} failed to load, using the built-in engine: ${String(error)}`);
    return createSifEmbedder();
  }
}
