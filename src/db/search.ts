/**
 * @module db/search
 * SQLite FTS5 full-text search over answers' typed text and transcripts (DESIGN §7). The only
 * SQLite-specific query outside migrations; a PostgreSQL dialect would swap this file. The index
 * deletes securely (FTS5 secure-delete, migration 2026-11-27T0200): a deleted or replaced answer's
 * words leave the index segments at once, so erasure needs no compaction.
 */
import { type RawBuilder, sql } from "kysely";

/**
 * Builds a safe FTS5 query: every word becomes a quoted prefix term, so user input is never
 * interpreted as FTS syntax. Returns null when no searchable word remains.
 */
export function toFtsQuery(input: string): string | null {
  const words = input.normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];
  if (!words.length) return null;
  return words.slice(0, 16).map((w) => `"${w.replaceAll('"', '""')}"*`).join(" ");
}

/**
 * A subquery of the uuids of responses with an answer matching every word of `input`
 * (case-insensitive), for `where("uuid", "in", …)`; null when `input` has no searchable word.
 * A subquery (not a list of uuids) keeps the SQL text fixed, so its prepared statement is reused.
 */
export function matchingResponseUuids(input: string): RawBuilder<string> | null {
  const q = toFtsQuery(input);
  if (!q) return null;
  return sql<string>`(SELECT response_uuid FROM answers_fts WHERE answers_fts MATCH ${q})`;
}
