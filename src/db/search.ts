/**
 * @module db/search
 * SQLite FTS5 full-text search over answers' typed text and transcripts (DESIGN §7). The only
 * SQLite-specific query outside migrations; a PostgreSQL dialect would swap this file.
 */
import { type Kysely, type Transaction, sql } from "kysely";
import type { Database } from "./schema.ts";

/**
 * Builds a safe FTS5 query: every word becomes a quoted prefix term, so user input is never
 * interpreted as FTS syntax. Returns null when no searchable word remains.
 */
export function toFtsQuery(input: string): string | null {
  const words = input.normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];
  if (!words.length) return null;
  return words.slice(0, 16).map((w) => `"${w.replaceAll('"', '""')}"*`).join(" ");
}

/** Uuids of responses with an answer matching every word of `input` (case-insensitive). */
export async function matchingResponseUuids(db: Kysely<Database> | Transaction<Database>, input: string): Promise<string[]> {
  const q = toFtsQuery(input);
  if (!q) return [];
  const result = await sql<{ response_uuid: string }>`SELECT DISTINCT response_uuid FROM answers_fts WHERE answers_fts MATCH ${q} LIMIT 10000`.execute(db);
  return result.rows.map((r) => r.response_uuid);
}
