/**
 * The hidden-field search index (migration 2026-12-03T0100-hidden-fields; docs/api.md "Hidden
 * fields") on SQLite: a response's hidden values are indexed by its rowid, found by a prefix,
 * and an erased or changed response's words leave the index's stored segments at once (FTS5
 * secure-delete), so no hidden value survives an erasure in the index. SQLite only (FTS5).
 */
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { migrateToLatest, openDatabase, type Db } from "./client.ts";

const onPostgres = !!process.env.EARSHOT_TEST_DATABASE_URL;
const opened: { db: Db; dir: string }[] = [];
const NOW = "2026-12-03T01:00:00.000000Z";

afterEach(async () => {
  for (const { db, dir } of opened.splice(0)) {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

async function freshDb(): Promise<Db> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-hidden-fts-"));
  const db = openDatabase(path.join(dir, "earshot.db"));
  opened.push({ db, dir });
  await migrateToLatest(db);
  return db;
}

async function addResponse(db: Db, uuid: string, hidden: Record<string, string>) {
  await sql`INSERT INTO responses (uuid, workspace_uuid, link_uuid, session_id, status, date_created, date_updated, hidden)
    VALUES (${uuid}, 'ws', 'link', ${`ses_${uuid}`}, 'started', ${NOW}, ${NOW}, ${JSON.stringify(hidden)})`.execute(db);
}

const found = async (db: Db, word: string) =>
  (await sql<{ response_uuid: string }>`SELECT response_uuid FROM responses_hidden_fts WHERE responses_hidden_fts MATCH ${`"${word}"*`}`.execute(db)).rows.map(
    (r) => r.response_uuid,
  );

/** Index segments (the FTS5 `_data` blobs) that still hold `word`'s bytes. */
const segmentsHolding = async (db: Db, word: string) =>
  Number(
    (await sql<{ n: number }>`SELECT count(*) AS n FROM responses_hidden_fts_data WHERE instr(block, ${new TextEncoder().encode(word)}) > 0`.execute(db))
      .rows[0]!.n,
  );

test.skipIf(onPostgres)("hidden values are searchable, and leave the index's segments on erasure and change (SQLite only: FTS5)", async () => {
  const db = await freshDb();
  await addResponse(db, "r1", { order_id: "qzorder77", plan: "pro" });
  await addResponse(db, "r2", {});
  await addResponse(db, "r3", { order_id: "qzkeepme" });
  expect(await found(db, "qzorder")).toEqual(["r1"]);
  expect(await found(db, "qzkeep")).toEqual(["r3"]);
  expect(await segmentsHolding(db, "qzorder77")).toBeGreaterThan(0);

  await sql`DELETE FROM responses WHERE uuid = 'r1'`.execute(db);
  expect(await found(db, "qzorder")).toEqual([]);
  expect(await segmentsHolding(db, "qzorder77")).toBe(0);

  await sql`UPDATE responses SET hidden = ${JSON.stringify({ order_id: "qznewval" })} WHERE uuid = 'r3'`.execute(db);
  expect(await found(db, "qzkeep")).toEqual([]);
  expect(await found(db, "qznewval")).toEqual(["r3"]);
  expect(await segmentsHolding(db, "qzkeepme")).toBe(0);
  // A response without hidden values has no index row.
  expect(Number((await sql<{ n: number }>`SELECT count(*) AS n FROM responses_hidden_fts`.execute(db)).rows[0]!.n)).toBe(1);
});
