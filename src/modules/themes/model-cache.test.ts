/**
 * The analyse job's in-memory theme model (themes/model-cache.ts, issue 24): a question's centres
 * are kept between answers, and a rebuild, a merge, a delete, a new or moved centre written by
 * ANOTHER connection (another node on PostgreSQL) is seen by the very next assignment; a rename
 * changes nothing. Real database on the test engine, two connections.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase, type Db } from "../../db/client.ts";
import { dropTestDatabase, openTestDatabase, testDatabaseTarget } from "../../../test/helpers/db.ts";
import { vectorBytes } from "./codec.ts";
import { themeOfNewAnswer } from "./engine.ts";
import * as repo from "./repository.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-model-cache-"));
let db: Db; // the analysing node
let other: Db; // another connection (an operator's request, a rebuild, another node)
const ws = crypto.randomUUID();
const link = crypto.randomUUID();
const question = crypto.randomUUID();
const now = () => new Date().toISOString();
const v = (...xs: number[]) => new Float32Array(xs);
const ANSWER = v(0.9, 0.3, 0.1);

async function addTheme(q: Db, centre: Float32Array): Promise<string> {
  const uuid = crypto.randomUUID();
  const t = now();
  await repo.insertTheme(q, {
    uuid,
    workspace_uuid: ws,
    link_uuid: link,
    question_uuid: question,
    label: uuid.slice(0, 8),
    label_source: "auto",
    description: null,
    pinned: 0,
    operator: 0,
    keyphrases: "[]",
    quotes: "[]",
    examples: "[]",
    centre: vectorBytes(centre),
    date_created: t,
    date_updated: t,
  });
  return uuid;
}

/** The theme the analyse job would give ANSWER now, on the analysing node with its cache. */
const assign = () =>
  db.transaction().execute((trx) => themeOfNewAnswer(trx, { workspaceUuid: ws, linkUuid: link, questionUuid: question }, ANSWER, "test", db));

beforeAll(async () => {
  db = await openTestDatabase(dir);
  other = openDatabase(await testDatabaseTarget(dir));
  await db
    .insertInto("workspaces")
    .values({ uuid: ws, name: "W", slug: "w", plan: "enterprise", host: null, links_limit: null, requests_per_minute: null, date_created: now() })
    .execute();
  await repo.ensureBuild(db, { link_uuid: link, question_uuid: question, workspace_uuid: ws }, now());
  // Built, threshold 0 (every answer gets its nearest theme), a rebuild held queued so none is started.
  await repo.updateBuild(db, link, question, { engine: "test", threshold: 0, built_at: now(), rebuild_queued: 1, answers_built: 100 });
});

afterAll(async () => {
  await db.destroy();
  await other.destroy();
  await dropTestDatabase(dir);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("another connection's theme changes are seen by the next assignment; a rename changes nothing", async () => {
  const a = await addTheme(db, v(1, 0, 0));
  const b = await addTheme(db, v(0, 1, 0));
  expect(await assign()).toBe(a);
  expect(await assign()).toBe(a); // from memory now

  // A merge of a into b (service.ts mergeThemes: b's centre kept, a deleted).
  await repo.reassignTheme(other, a, b);
  await repo.deleteThemes(other, [a]);
  expect(await assign()).toBe(b);

  // A new theme closer to the answer than b.
  const c = await addTheme(other, v(0.8, 0.6, 0));
  expect(await assign()).toBe(c);

  // A rebuild: centres move, the build row is stamped again.
  await other.transaction().execute(async (trx) => {
    await repo.updateTheme(trx, c, { centre: vectorBytes(v(0, 0, 1)) });
    await repo.updateTheme(trx, b, { centre: vectorBytes(v(0.6, 0.8, 0)) });
    await repo.updateBuild(trx, link, question, { built_at: now() });
  });
  expect(await assign()).toBe(b);

  // Only a centre moves (no new build stamp): seen too.
  await repo.updateTheme(other, c, { centre: vectorBytes(v(0.9, 0.3, 0.1)) });
  expect(await assign()).toBe(c);

  // A rename does not change where an answer goes.
  await repo.updateTheme(other, c, { label: "Renamed", label_source: "operator", pinned: 1 });
  expect(await assign()).toBe(c);

  // A rolled-back change by another connection leaves nothing behind.
  await other
    .transaction()
    .execute(async (trx) => {
      await repo.deleteThemes(trx, [c]);
      throw new Error("rolled back");
    })
    .catch(() => {});
  expect(await assign()).toBe(c);
  await repo.deleteThemes(other, [c]);
  expect(await assign()).toBe(b);
});
