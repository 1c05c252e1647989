/**
 * The engine rules of `src/db/` (DESIGN §11, docs/decisions/postgres.md), on the test engine
 * (SQLite, or PostgreSQL with EARSHOT_TEST_DATABASE_URL): search means the same on both, counts
 * are numbers; on PostgreSQL plain write transactions are serial (advisory lock) while one with an
 * explicit isolation level is not, and text sorts bytewise whatever the database's locale.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { dropTestDatabase, onPostgres, openTestDatabase, TEST_DATABASE_URL } from "../../test/helpers/db.ts";
import { seedResponses } from "../../test/helpers/seed-responses.ts";
import { migrateToLatest, openDatabase, type Db } from "./client.ts";
import { matchingResponseUuids } from "./search.ts";

let dataDir: string;
let db: Db;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-engine-"));
  db = await openTestDatabase(dataDir);
});
afterAll(async () => {
  await db.destroy();
  await dropTestDatabase(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const TEXTS = ["Café au lait was great", "bob@Example.com wrote an e-mail", "Nothing to see", "A NAÏVE question"];

async function search(input: string): Promise<number[]> {
  const sub = matchingResponseUuids(db, input);
  if (!sub) return [];
  const rows = await db.selectFrom("responses").select("uuid").where("uuid", "in", sub).execute();
  return rows.map((r) => uuids.indexOf(r.uuid)).sort();
}
let uuids: string[];

test("search: every word must start a word of one answer, ignoring case and accents; punctuation separates words", async () => {
  const link = { uuid: crypto.randomUUID(), questions: [{ uuid: crypto.randomUUID(), field_key: "comment", prompt: "Comment" }] };
  uuids = await seedResponses(db, crypto.randomUUID(), link, TEXTS.length, (i) => TEXTS[i]!);
  expect(await search("cafe")).toEqual([0]);
  expect(await search("CAFÉ LAI")).toEqual([0]);
  expect(await search("lait nothing")).toEqual([]);
  expect(await search("example")).toEqual([1]);
  expect(await search("mail bob")).toEqual([1]);
  expect(await search("naive")).toEqual([3]);
  expect(await search("ote")).toEqual([]); // a prefix, not a substring
  expect(await search("' OR 1=1 --")).toEqual([]);
  expect(matchingResponseUuids(db, "--- !!")).toBeNull();
});

test("search follows transcripts as they are written, and forgets deleted answers", async () => {
  await db.updateTable("answers").set({ transcription: "Spoken feedback about pricing" }).where("response_uuid", "=", uuids[2]!).execute();
  expect(await search("pricing spoken")).toEqual([2]);
  expect(await search("nothing pricing")).toEqual([2]); // typed text and transcript are one answer
  await db.deleteFrom("answers").where("response_uuid", "=", uuids[2]!).execute();
  expect(await search("pricing")).toEqual([]);
});

test("counts and sums are numbers", async () => {
  const row = await db
    .selectFrom("answers")
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.sum<number>("position").as("s")])
    .executeTakeFirstOrThrow();
  expect(row).toEqual({ n: 3, s: 0 });
});

test.skipIf(!onPostgres)(
  "plain write transactions wait for each other; one with an isolation level does not (PostgreSQL only: the advisory write lock)",
  async () => {
    const events: string[] = [];
    const holding = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const first = db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      events.push("first begins");
      holding.resolve();
      await release.promise;
      events.push("first commits");
    });
    await holding.promise;
    const second = db.transaction().execute(async () => {
      events.push("second begins");
    });
    const concurrent = db
      .transaction()
      .setIsolationLevel("read committed")
      .execute(async () => {
        events.push("read committed begins");
      });
    await concurrent;
    await Bun.sleep(300);
    release.resolve();
    await Promise.all([first, second]);
    expect(events).toEqual(["first begins", "read committed begins", "first commits", "second begins"]);
  },
);

test.skipIf(!onPostgres)(
  "text sorts bytewise (C collation) even in a database created with an ICU locale (PostgreSQL only: SQLite compares bytes already)",
  async () => {
    const name = `earshot_t_icu_${process.pid}_${Date.now()}`;
    const admin = openDatabase(TEST_DATABASE_URL!);
    await sql.raw(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'und' LOCALE 'C.UTF-8'`).execute(admin);
    const url = new URL(TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    const icu = openDatabase(url.toString());
    try {
      const { rows } = await sql<{ icu: boolean }>`select 'B' < 'a' as icu`.execute(icu);
      expect(rows[0]!.icu).toBe(false); // the database's own order puts "a" first
      await migrateToLatest(icu);
      await icu
        .insertInto("settings")
        .values([
          { key: "a", value: "1" },
          { key: "B", value: "2" },
          { key: "link.", value: "3" },
          { key: "link-x", value: "4" },
        ])
        .execute();
      expect(
        (await icu.selectFrom("settings").select("key").where("key", "in", ["a", "B", "link.", "link-x"]).orderBy("key").execute()).map((r) => r.key),
      ).toEqual(["B", "a", "link-x", "link."]);
    } finally {
      await icu.destroy();
      await sql.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).execute(admin);
      await admin.destroy();
    }
  },
);
