/**
 * @module db/search
 * Full-text search over answers' typed text, transcripts and follow-up answers (DESIGN §7; follow-ups
 * since migration 2026-12-02T0100): SQLite FTS5
 * (`answers_fts`), or on PostgreSQL a `tsvector` per answer (`answers_search`, GIN, text search
 * configuration `earshot_search`; migration 2026-11-21T0000). Same semantics on both: every word
 * of the input must occur in one answer as a prefix of a word, ignoring case and accents. A
 * response's hidden-field values (issue 25) are indexed together as one more such document
 * (`responses_hidden_fts` / `responses_hidden_search`, migration 2026-12-03T0100). On
 * SQLite the index deletes securely (FTS5 secure-delete, migration 2026-11-27T0200): a deleted or
 * replaced answer's words leave the index segments at once, so erasure needs no compaction.
 */
import { type Kysely, type RawBuilder, sql, type Transaction } from "kysely";
import { isPostgres } from "./dialect.ts";

/** The searchable words of `input` (letters and digits; at most 16), NFKC-normalised. */
function wordsOf(input: string): string[] {
  return (input.normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 16);
}

/**
 * Builds a safe FTS5 query: every word becomes a quoted prefix term, so user input is never
 * interpreted as FTS syntax. Returns null when no searchable word remains.
 */
export function toFtsQuery(input: string): string | null {
  const words = wordsOf(input);
  if (!words.length) return null;
  return words.map((w) => `"${w.replaceAll('"', '""')}"*`).join(" ");
}

/**
 * The PostgreSQL `to_tsquery` text for `input`: every word a quoted prefix term, all required
 * (`'a':* & 'b':*`); words hold only letters and digits, so nothing is read as query syntax.
 * Returns null when no searchable word remains.
 */
export function toTsQuery(input: string): string | null {
  const words = wordsOf(input);
  return words.length ? words.map((w) => `'${w}':*`).join(" & ") : null;
}

/**
 * A subquery of the uuids of responses with an answer (or the hidden values) matching every word of `input`
 * (case-insensitive), for `where("uuid", "in", …)`; null when `input` has no searchable word.
 * A subquery (not a list of uuids) keeps the SQL text fixed, so its prepared statement is reused.
 */
export function matchingResponseUuids(db: Kysely<any> | Transaction<any>, input: string): RawBuilder<string> | null {
  if (isPostgres(db)) {
    const tq = toTsQuery(input);
    return tq
      ? sql<string>`(SELECT response_uuid FROM answers_search WHERE body @@ to_tsquery('earshot_search', ${tq}) UNION ALL SELECT response_uuid FROM responses_hidden_search WHERE body @@ to_tsquery('earshot_search', ${tq}))`
      : null;
  }
  const q = toFtsQuery(input);
  if (!q) return null;
  return sql<string>`(SELECT response_uuid FROM answers_fts WHERE answers_fts MATCH ${q} UNION ALL SELECT response_uuid FROM responses_hidden_fts WHERE responses_hidden_fts MATCH ${q})`;
}
