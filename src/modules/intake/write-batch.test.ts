/**
 * Group commit of the intake's writes (intake/write-batch.ts) on the test engine: units queued
 * together share a transaction; each unit is acknowledged only once its writes are committed
 * (visible to another connection); a failing unit's writes are never committed, the others' are.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CompiledQuery } from "kysely";
import { openDatabase, type Db } from "../../db/client.ts";
import { dropTestDatabase, onPostgres, openTestDatabase, testDatabaseTarget } from "../../../test/helpers/db.ts";
import { createWriteBatcher } from "./write-batch.ts";

let dir: string;
let db: Db;
/** A second connection: sees only committed rows. */
let other: Db;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-batch-"));
  db = await openTestDatabase(dir);
  other = openDatabase(await testDatabaseTarget(dir));
});

afterAll(async () => {
  await other.destroy();
  await db.destroy();
  await dropTestDatabase(dir);
  fs.rmSync(dir, { recursive: true, force: true });
});

const committed = async (key: string) => (await other.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst()) ?? null;

/** Queues units that insert `key` into settings; `fail` throws before ("before") or after ("after") the write. */
function harness(batcher: ReturnType<typeof createWriteBatcher>) {
  const runs = new Map<string, number>();
  const seenByOthers: boolean[] = [];
  const acknowledged: string[] = [];
  const started: string[] = [];
  /** Per run: whether a unit that ran before it was already committed (false throughout = one transaction). */
  const earlierCommitted: boolean[] = [];
  const unit = (key: string, fail?: "before" | "after") =>
    batcher
      .run(async (trx) => {
        runs.set(key, (runs.get(key) ?? 0) + 1);
        earlierCommitted.push((await Promise.all(started.map(committed))).some((row) => row !== null));
        started.push(key);
        if (fail === "before") throw new Error(`unit ${key} refused`);
        await trx.insertInto("settings").values({ key, value: "v" }).execute();
        // Inside the batch the write exists, but no other connection sees it before COMMIT.
        seenByOthers.push((await committed(key)) !== null);
        if (fail === "after") throw new Error(`unit ${key} failed`);
        return key;
      })
      .then(async (k) => {
        // Acknowledged: the row is committed (another connection reads it).
        expect((await committed(k))?.value).toBe("v");
        acknowledged.push(k);
        return k;
      });
  return { unit, runs, seenByOthers, acknowledged, earlierCommitted };
}

test("units queued together share one transaction, are acknowledged only after COMMIT; a unit refused before writing is rejected alone", async () => {
  const h = harness(createWriteBatcher(db));
  const results = await Promise.allSettled([h.unit("a"), h.unit("b"), h.unit("c", "before"), h.unit("d")]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
  expect(String((results[2] as PromiseRejectedResult).reason)).toContain("unit c refused");
  expect(h.seenByOthers).toEqual([false, false, false]);
  expect(h.earlierCommitted).toEqual([false, false, false, false]);
  expect(h.acknowledged.sort()).toEqual(["a", "b", "d"]);
  // Nothing had to be undone: every function ran once.
  expect([...h.runs.values()]).toEqual([1, 1, 1, 1]);
  expect(await committed("c")).toBeNull();
});

test("a unit failing after its writes leaves nothing; the others of its batch run again and commit", async () => {
  const h = harness(createWriteBatcher(db));
  const results = await Promise.allSettled([h.unit("e"), h.unit("f"), h.unit("g", "after"), h.unit("h")]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
  expect(String((results[2] as PromiseRejectedResult).reason)).toContain("unit g failed");
  expect(h.seenByOthers.every((seen) => !seen)).toBe(true);
  expect(await committed("g")).toBeNull();
  for (const k of ["e", "f", "h"]) expect((await committed(k))?.value).toBe("v");
  expect(h.runs.get("g")).toBe(1);
  expect(h.acknowledged.sort()).toEqual(["e", "f", "h"]);
});

test("a unit alone that fails leaves nothing, and the next unit still commits", async () => {
  const batcher = createWriteBatcher(db);
  await expect(
    batcher.run(async (trx) => {
      await trx.insertInto("settings").values({ key: "lonely", value: "v" }).execute();
      throw new Error("nope");
    }),
  ).rejects.toThrow("nope");
  expect(await committed("lonely")).toBeNull();
  expect(await batcher.run(async (trx) => (await trx.insertInto("settings").values({ key: "after", value: "v" }).execute(), "ok"))).toBe("ok");
  expect((await committed("after"))?.value).toBe("v");
});

test.skipIf(onPostgres)("a failing COMMIT rejects every unit of its batch (SQLite only: a deferred foreign key; PostgreSQL's are not deferrable)", async () => {
  const batcher = createWriteBatcher(db);
  // A deferred foreign key is checked at COMMIT: the whole transaction fails there.
  const results = await Promise.allSettled([
    batcher.run(async (trx) => {
      await trx.insertInto("settings").values({ key: "first", value: "v" }).execute();
    }),
    batcher.run(async (trx) => {
      await trx.insertInto("settings").values({ key: "second", value: "v" }).execute();
    }),
    batcher.run(async (trx) => {
      await trx.insertInto("settings").values({ key: "third", value: "v" }).execute();
      await trx.executeQuery(CompiledQuery.raw("PRAGMA defer_foreign_keys = ON"));
      await trx.executeQuery(
        CompiledQuery.raw(
          "INSERT INTO answers (uuid, response_uuid, question_uuid, field_key, response_type, question_text, position, value, transcription_status, follow_ups, custom_fields, date_created, date_updated) VALUES ('x', 'no-such-response', 'q', 'f', 'text', 'Q', 0, 'null', 'not_applicable', '[]', '{}', 'now', 'now')",
        ),
      );
    }),
  ]);
  // Queued in the same turn, the three share one transaction: none is acknowledged.
  expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
  expect(await committed("first")).toBeNull();
  expect(await committed("second")).toBeNull();
  expect(await committed("third")).toBeNull();
});
