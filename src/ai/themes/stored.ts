/**
 * @module ai/themes/stored
 * A theme build from stored vectors (the `themes` job, DESIGN §12): the inputs carry the vector
 * the analysis stored and the engine that made it. Vectors of two engines are not comparable, so
 * every input whose engine is not this embedder's (an operator changed `EARSHOT_EMBEDDING_MODEL`,
 * or an answer was never embedded) is embedded again from its analysed text first, and the build
 * returns those fresh vectors for the caller to store.
 */
import { buildThemes } from "./build.ts";
import type { SelectedEmbedder } from "./select.ts";
import type { StoredBuildOptions, StoredThemeBuild, StoredThemeInput } from "../protocol.ts";

/**
 * Builds one question's themes with `embedder`, embedding again what another engine made.
 * @param inputs the answers, each with its stored vector (`engine` null: none) and `embedText`.
 * @param options build options; seeds name their example answers by input id.
 * @returns the build (its `engine` is `embedder.id`), `embedded`: the inputs embedded again,
 *   in input order, with their new unit vectors, and `embeddedFollowUps`: the follow-up answers
 *   embedded (those of `embedded` inputs, and those stored without a vector).
 * @throws whatever the sentence model throws when it fails to run.
 */
export async function buildFromStored(inputs: StoredThemeInput[], options: StoredBuildOptions, embedder: SelectedEmbedder): Promise<StoredThemeBuild> {
  const stale = inputs.filter((x) => x.engine !== embedder.id || x.vector.length !== embedder.dimensions);
  const staleIds = new Set(stale.map((x) => x.id));
  // Follow-up answers go with their answer's engine; one stored without a vector is embedded too.
  const usable = (v: Float32Array | null): v is Float32Array => v !== null && v.length === embedder.dimensions && v.some((x) => x !== 0);
  const followUpsToEmbed = inputs.flatMap((x) => (x.followUps ?? []).filter((f) => staleIds.has(x.id) || !usable(f.vector)).map((f) => ({ id: x.id, f })));
  const fresh = await embedder.embedBatch([...stale.map((x) => x.embedText), ...followUpsToEmbed.map((j) => j.f.text)]);
  const vectorOf = new Map(inputs.map((x) => [x.id, x.vector]));
  const embedded = stale.map((x, i) => ({ id: x.id, vector: fresh[i]! }));
  for (const e of embedded) vectorOf.set(e.id, e.vector);
  const embeddedFollowUps = followUpsToEmbed.map((j, i) => ({ id: j.id, index: j.f.index, vector: fresh[stale.length + i]! }));
  const followUpVector = new Map(embeddedFollowUps.map((e) => [`${e.id}/${e.index}`, e.vector]));
  const build = buildThemes(
    inputs.map((x) => ({
      id: x.id,
      text: x.text,
      vector: vectorOf.get(x.id)!,
      followUps: (x.followUps ?? []).map((f) => ({ index: f.index, text: f.text, vector: followUpVector.get(`${x.id}/${f.index}`) ?? f.vector! })),
    })),
    embedder,
    {
      ...options,
      seeds: (options.seeds ?? []).map(({ exampleIds, ...seed }) => ({
        ...seed,
        examples: exampleIds.map((id) => vectorOf.get(id)).filter((v): v is Float32Array => v !== undefined),
      })),
    },
  );
  return { ...build, embedded, embeddedFollowUps };
}
