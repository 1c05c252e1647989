/**
 * @module themes/follow-ups
 * Follow-up answers in theme builds (issue 24; docs/insights.md "Follow-up answers"): each
 * answered follow-up has its own vector (`answers.follow_up_embeddings`, written by the analyse
 * job) and is a quote candidate of its answer's theme. A rebuild sends them to the worker with
 * their stored vectors and stores the ones it embedded again (engine change, or analysed before
 * the vectors existed).
 */
import type { Executor } from "../../db/schema.ts";
import { followUpAnswersOf } from "./analysis-text.ts";
import { bytesVectors, vectorsBytes } from "./codec.ts";

/** What this module reads of an answer row. */
type Row = { follow_ups: string; embedding?: Uint8Array | null; follow_up_embeddings?: Uint8Array | null };

/** The stored follow-up vectors of an answer, one per entry of `follow_ups` (empty: none stored). */
function storedVectors(r: Row): Float32Array[] {
  const dims = r.embedding ? r.embedding.byteLength / 4 : 0;
  return bytesVectors(r.follow_up_embeddings ?? null, dims);
}

/**
 * An answer's answered follow-ups for a build: `{ index, text, vector }`, `vector` null when none
 * is stored for it (or only zeros).
 */
export function followUpInputs(r: Row): { index: number; text: string; vector: Float32Array | null }[] {
  const stored = storedVectors(r);
  return followUpAnswersOf(r).map((f) => {
    const v = stored[f.index];
    return { ...f, vector: v?.some((x) => x !== 0) ? v : null };
  });
}

/**
 * Writes the follow-up vectors a build embedded into their answers' `follow_up_embeddings`
 * (others of the same answer are kept; unanswered ones stay zeros).
 * @param rows the build's answer rows by uuid (their `follow_ups` and stored vectors).
 * @param embedded `{ id (answer uuid), index (in follow_ups), vector }`.
 */
export async function storeFollowUpVectors(
  db: Executor,
  rows: Map<string, Row>,
  embedded: { id: string; index: number; vector: Float32Array }[],
): Promise<void> {
  const byAnswer = Map.groupBy(embedded, (e) => e.id);
  for (const [id, list] of byAnswer) {
    const r = rows.get(id);
    if (!r) continue;
    const dims = list[0]!.vector.length;
    const count = (JSON.parse(r.follow_ups) as unknown[]).length;
    const old = storedVectors(r);
    const all = Array.from({ length: count }, (_, i) => (old[i]?.length === dims ? old[i]! : new Float32Array(dims)));
    for (const e of list) if (e.index < count) all[e.index] = e.vector;
    await db
      .updateTable("answers")
      .set({ follow_up_embeddings: vectorsBytes(all) })
      .where("uuid", "=", id)
      .execute();
  }
}
