/**
 * @module ai/themes
 * Themes across responses (DESIGN §12, issue 24): the engine as a pure library. The worker, the
 * API, storage and the console call these; `earshot themes --jsonl` (src/commands/themes.ts)
 * runs {@link themeGroups} on standard input.
 *
 * - {@link createSifEmbedder}: text → unit Float32Array (default engine, inside the binary).
 * - {@link selectEmbedder}: the installed sentence-embedding model, else the default engine.
 * - {@link buildThemes}: one question's answers → themes (label, keyphrases, quotes, centre).
 * - {@link assignAnswer}: one new answer → nearest theme or none, from a stored {@link ThemeModel}.
 * - {@link reconcileThemes}: a rebuild's clusters → the ids of the themes before it.
 * - {@link themeModelOf}, {@link encodeThemeModel}, {@link decodeThemeModel}: the assignment
 *   model of a build, and its compact JSON for storage.
 */
import { createSifEmbedder, type Embedder } from "./embedder.ts";
import { buildThemes, type BuildOptions, type EngineInfo } from "./build.ts";
import type { SelectedEmbedder } from "./select.ts";

export { createSifEmbedder, DEFAULT_SIF_A, SIF_ENGINE_ID, type BatchEmbedder, type Embedder, type SifOptions } from "./embedder.ts";
export { hasSentenceModel, loadSentenceEmbedder } from "./sentence-embedder.ts";
export { EMBEDDING_AUTO, EMBEDDING_SIF, installedSentenceModel, selectEmbedder, SENTENCE_MODELS, type SelectedEmbedder } from "./select.ts";
export { buildThemes, SEED_ASSIGN, type BuildOptions, type BuiltTheme, type EngineInfo, type SeedTheme, type ThemeBuild, type ThemeInput } from "./build.ts";
export { DEFAULT_CLUSTER_OPTIONS, type ClusterOptions } from "./cluster.ts";
export {
  assignAnswer,
  CARRY_OVER_JACCARD,
  DEFAULT_ASSIGN_THRESHOLD,
  jaccard,
  reconcileThemes,
  type Assignment,
  type PreviousTheme,
  type Reconciliation,
  type ThemeModel,
} from "./incremental.ts";
export { decodeThemeModel, encodeThemeModel, themeModelOf } from "./model-store.ts";
export type { Quote } from "./quotes.ts";

/** One answer of the JSONL contract (DESIGN §12): `group` is the question it answers. */
export interface GroupedAnswer {
  id: string;
  text: string;
  group: string;
}

/** The JSONL output: one assignment per input, in input order, then the quotes' answer ids. */
export interface GroupedThemes {
  assignments: { id: string; theme: string | null; label: string | null }[];
  quotes: string[];
}

/**
 * Clusters each group as one question's answers (DESIGN §12 `earshot themes --jsonl`). A theme's
 * id is `<group>/theme-<rank by size>` (deterministic for the same input in the same order).
 * Quotes are listed group by group (first appearance), theme by theme, best first.
 * @param answers any number of answers, groups interleaved or not.
 * @param embedder default: the SIF engine.
 */
export function themeGroups(answers: GroupedAnswer[], embedder: Embedder = createSifEmbedder(), options: BuildOptions = {}): GroupedThemes {
  return groupThemes(
    answers,
    answers.map((a) => embedder.embed(a.text)),
    embedder,
    options,
  );
}

/**
 * {@link themeGroups} with any engine, e.g. the one {@link selectEmbedder} chose: the texts are
 * embedded with `embedBatch` first (in the model's batches).
 * @throws what `embedder.embedBatch` throws (the sentence model failing to run).
 */
export async function themeGroupsWith(answers: GroupedAnswer[], embedder: SelectedEmbedder, options: BuildOptions = {}): Promise<GroupedThemes> {
  return groupThemes(answers, await embedder.embedBatch(answers.map((a) => a.text)), embedder, options);
}

function groupThemes(answers: GroupedAnswer[], vectors: Float32Array[], engine: EngineInfo, options: BuildOptions): GroupedThemes {
  const groups = new Map<string, number[]>();
  answers.forEach((a, i) => {
    const g = groups.get(a.group);
    if (g) g.push(i);
    else groups.set(a.group, [i]);
  });
  const assignments: GroupedThemes["assignments"] = answers.map((a) => ({ id: a.id, theme: null, label: null }));
  const quotes: string[] = [];
  for (const [group, indices] of groups) {
    const inputs = indices.map((i) => ({ id: answers[i]!.id, text: answers[i]!.text, vector: vectors[i]! }));
    const build = buildThemes(inputs, engine, options);
    const labelOf = new Map(build.themes.map((t) => [t.key, t.label]));
    build.assignments.forEach((key, j) => {
      if (key) assignments[indices[j]!] = { id: inputs[j]!.id, theme: `${group}/${key}`, label: labelOf.get(key)! };
    });
    for (const t of build.themes) for (const q of t.quotes) quotes.push(inputs[q.answer]!.id);
  }
  return { assignments, quotes };
}
