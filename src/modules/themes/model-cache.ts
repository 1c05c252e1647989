/**
 * @module themes/model-cache
 * Each question's assignment model (the build's common components and its themes' centres,
 * decoded) kept in memory between analysed answers (issue 24: the analysis must not cost more per
 * answer than before themes), instead of reading and decoding every centre for every answer.
 *
 * Exact by construction, on both engines and with several nodes: an entry is trusted only while
 * the build row's `built_at`, `engine`, `threshold` and `centres_version` are the ones it was read
 * at. `centres_version` is raised by triggers whenever a theme of the question is added, deleted
 * or gets a new centre, whoever writes (migration 2026-12-03T0100), and the caller reads those
 * columns in the UPDATE that counts the answer, i.e. under the build row's write lock: a change
 * committed before is seen, one in progress is waited for. The rows an entry is filled from are
 * read after that, in the same transaction, under the same lock. The caller's transaction must
 * not itself have changed the question's themes before (the analyse job's does not): a rolled
 * back change could otherwise leave an entry at a counter value a later change reuses.
 */
import type { ThemeModel } from "../../ai/themes/incremental.ts";

/** The build row columns an entry is valid for. */
export type ModelStamp = { built_at: string | null; engine: string | null; threshold: number; centres_version: number | string | bigint };

type Entry = { stamp: string; dims: number; model: ThemeModel };

/** Questions kept per database; the oldest stored goes first. */
const MAX_ENTRIES = 1000;
const byDb = new WeakMap<object, Map<string, Entry>>();

const stampOf = (s: ModelStamp) => `${s.built_at}\u0000${s.engine}\u0000${s.threshold}\u0000${String(s.centres_version)}`;
const keyOf = (linkUuid: string, questionUuid: string) => `${linkUuid}\u0000${questionUuid}`;

/**
 * The model of a question stored for `owner` at exactly `stamp` and `dims`-dimensional vectors, else undefined.
 * @param owner the root database instance (the cache's scope: one map per database)
 */
export function cachedModel(owner: object, linkUuid: string, questionUuid: string, stamp: ModelStamp, dims: number): ThemeModel | undefined {
  const e = byDb.get(owner)?.get(keyOf(linkUuid, questionUuid));
  return e && e.dims === dims && e.stamp === stampOf(stamp) ? e.model : undefined;
}

/** Stores a question's model as read at `stamp` (frozen: every later answer shares it). */
export function storeModel(owner: object, linkUuid: string, questionUuid: string, stamp: ModelStamp, dims: number, model: ThemeModel): void {
  let entries = byDb.get(owner);
  if (!entries) byDb.set(owner, (entries = new Map()));
  const key = keyOf(linkUuid, questionUuid);
  entries.delete(key);
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  Object.freeze(model.components);
  Object.freeze(model.themes);
  entries.set(key, { stamp: stampOf(stamp), dims, model: Object.freeze(model) });
}
