/**
 * FTS5 secure-delete on the answers' search index (security review finding 8; docs/api.md
 * "Erasure"): a deleted or updated answer's words are removed from the index segments at once,
 * instead of staying there behind a delete marker until the next merge. Erasure and the purge of
 * abandoned sessions then need no `optimize` inside their transactions (which held the write lock
 * for about 0.25 s per 50,000 answers). The setting is persistent (stored in `answers_fts_config`);
 * one `optimize` here drops what earlier deletes left behind. Needs SQLite ≥ 3.42 (Bun ships
 * 3.54). Frozen: never edit, add a new migration instead.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
  // PostgreSQL has no FTS5 segments: a deleted answer's `answers_search` row goes with it
  // (docs/decisions/postgres.md "Erasure").
  if (isPostgres(db)) return;
  await sql`INSERT INTO answers_fts(answers_fts, rank) VALUES ('secure-delete', 1)`.execute(db);
  await sql`INSERT INTO answers_fts(answers_fts) VALUES ('optimize')`.execute(db);
}
