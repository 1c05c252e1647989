/**
 * The answers' search index is keyed by the answer's rowid and keeps no copy of the text
 * (migration 2026-11-28T0300-answers-fts-by-rowid): its triggers find an answer's index row by
 * rowid instead of scanning for `answer_uuid`, a corrected or deleted answer leaves the index,
 * and a database indexed the old way is re-indexed by the migration. SQLite only (FTS5).
 */
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Migrator, sql } from "kysely";
import { migrateToLatest, openDatabase, type Db } from "./client.ts";
import { migrations } from "./migrations/index.ts";

const onPostgres = !!process.env.EARSHOT_TEST_DATABASE_URL;
const opened: { db: Db; dir: string }[] = [];

function freshDb(): Db {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-fts-"));
  const db = openDatabase(path.join(dir, "earshot.db"));
  opened.push({ db, dir });
  return db;
}

afterEach(async () => {
  for (const { db, dir } of opened.splice(0)) {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const NOW = "2026-11-28T03:00:00.000000Z";

async function addResponse(db: Db, uuid: string) {
  await sql`INSERT INTO responses (uuid, workspace_uuid, link_uuid, session_id, status, date_created, date_updated)
    VALUES (${uuid}, 'ws', 'link', ${`ses_${uuid}`}, 'started', ${NOW}, ${NOW})`.execute(db);
}

/** Inserts an answer with the given rowid (so index rowids that merely count from 1 cannot pass). */
async function addAnswer(db: Db, rowid: number, uuid: string, responseUuid: string, text: string) {
  await sql`INSERT INTO answers (rowid, uuid, response_uuid, question_uuid, field_key, response_type, question_text, position, value, text,
      transcription_status, follow_ups, custom_fields, date_created, date_updated)
    VALUES (${rowid}, ${uuid}, ${responseUuid}, ${`q-${uuid}`}, 'f', 'text', 'Q', 0, ${JSON.stringify(text)}, ${text}, 'not_applicable', '[]', '{}', ${NOW}, ${NOW})`.execute(
    db,
  );
}

const matches = async (db: Db, word: string) =>
  (
    await sql<{
      rowid: number;
      response_uuid: string;
    }>`SELECT rowid, response_uuid FROM answers_fts WHERE answers_fts MATCH ${`"${word}"*`} ORDER BY rowid`.execute(db)
  ).rows;

test.skipIf(onPostgres)(
  "the index row of an answer has the answer's rowid, no copy of its text, and follows corrections and deletes (SQLite only: FTS5 internals)",
  async () => {
    const db = freshDb();
    await migrateToLatest(db);
    await addResponse(db, "r1");
    await addAnswer(db, 1000, "a1", "r1", "the checkout was Xylophorbquux slow");
    await addAnswer(db, 2000, "a2", "r1", "support was quick");
    expect(await matches(db, "xylophorbquux")).toEqual([{ rowid: 1000, response_uuid: "r1" }]);
    // Contentless: the index stores the response uuid for the search subquery, not the text.
    const stored = (await sql<{ body: string | null }>`SELECT body FROM answers_fts WHERE rowid = 1000`.execute(db)).rows;
    expect(stored).toEqual([{ body: null }]);

    await sql`UPDATE answers SET text = 'nothing more' WHERE uuid = 'a1'`.execute(db);
    expect(await matches(db, "xylophorbquux")).toEqual([]);
    expect(await matches(db, "nothing")).toEqual([{ rowid: 1000, response_uuid: "r1" }]);
    await sql`UPDATE answers SET transcription = 'Quuxtranscribed words' WHERE uuid = 'a2'`.execute(db);
    expect(await matches(db, "quuxtranscribed")).toEqual([{ rowid: 2000, response_uuid: "r1" }]);
    expect(await matches(db, "quick")).toEqual([{ rowid: 2000, response_uuid: "r1" }]);

    await sql`DELETE FROM answers WHERE uuid = 'a1'`.execute(db);
    expect(await matches(db, "nothing")).toEqual([]);
    expect(await matches(db, "quick")).toEqual([{ rowid: 2000, response_uuid: "r1" }]);
    const count = (await sql<{ n: number }>`SELECT count(*) AS n FROM answers_fts`.execute(db)).rows[0]!.n;
    expect(count).toBe(1);
  },
);

test.skipIf(onPostgres)(
  "a database indexed the old way (by answer_uuid) is re-indexed by rowid, with secure-delete kept (SQLite only: FTS5 internals)",
  async () => {
    const db = freshDb();
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const before = await migrator.migrateTo("2026-11-27T0200-answers-fts-secure-delete");
    expect(before.error).toBeUndefined();
    await addResponse(db, "r1");
    await addResponse(db, "r2");
    await addAnswer(db, 7, "a1", "r1", "Zorbleflat pricing page");
    await addAnswer(db, 9, "a2", "r2", "Zorbleflat checkout");
    await sql`DELETE FROM answers WHERE uuid = 'a1'`.execute(db);
    await addAnswer(db, 12, "a3", "r1", "Quorpish delivery");

    await migrateToLatest(db);
    expect(await matches(db, "zorbleflat")).toEqual([{ rowid: 9, response_uuid: "r2" }]);
    expect(await matches(db, "quorpish")).toEqual([{ rowid: 12, response_uuid: "r1" }]);
    expect(await matches(db, "pricing")).toEqual([]);
    await sql`DELETE FROM answers WHERE uuid = 'a2'`.execute(db);
    expect(await matches(db, "zorbleflat")).toEqual([]);
    const config = await sql<{ v: number }>`SELECT v FROM answers_fts_config WHERE k = 'secure-delete'`.execute(db);
    expect(config.rows[0]?.v).toBe(1);
  },
);
