/**
 * The job runner's per-job statements (the give-up check, the claim, the completion) read a deep
 * queue through indexes, never by scanning or sorting it (issue 24: ~5 ms per analysed answer with
 * ~15,000 queued jobs; docs/decisions/job-claim-indexes.md). Every statement they send is captured
 * and its plan read on the test's engine (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN after
 * ANALYZE), with a real backlog in the table.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CompiledQuery, type KyselyPlugin } from "kysely";
import type { Db } from "../db/client.ts";
import { isPostgres } from "../db/dialect.ts";
import { dropTestDatabase, openTestDatabase } from "../../test/helpers/db.ts";
import { claimJob, completeJob, exhaustedJobs } from "./queue.ts";

let dir: string;
let db: Db;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-claim-plan-"));
  db = await openTestDatabase(dir);
});
afterEach(async () => {
  await db.destroy();
  await dropTestDatabase(dir);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Fills the queue: `queued` waiting jobs (two priorities) and as many finished ones. */
async function backlog(queued: number): Promise<void> {
  const now = new Date(Date.now() - 60_000).toISOString();
  const row = (i: number, state: "queued" | "done") => ({
    kind: "analyse" as const,
    payload: JSON.stringify({ answer_uuid: `a${i}` }),
    state,
    priority: i % 5 === 0 ? 0 : 1,
    run_at: now,
    date_created: now,
    date_updated: now,
  });
  for (let i = 0; i < queued; i += 500) {
    const n = Math.min(500, queued - i);
    await db
      .insertInto("jobs")
      .values(Array.from({ length: n }, (_, k) => row(i + k, "queued")))
      .execute();
    await db
      .insertInto("jobs")
      .values(Array.from({ length: n }, (_, k) => row(i + k, "done")))
      .execute();
  }
}

/**
 * Records every statement sent through Kysely's executors (with their parameters) while `run`
 * runs on a view of `db` with a no-op plugin: a plugin sends the compiled-once statements
 * (db/prepared.ts) through Kysely too, instead of straight to bun:sqlite.
 */
async function captured(run: (db: Db) => Promise<void>): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  let proto = Object.getPrototypeOf(db.getExecutor());
  while (proto && !Object.hasOwn(proto, "executeQuery")) proto = Object.getPrototypeOf(proto);
  const original = proto.executeQuery;
  proto.executeQuery = function (this: unknown, query: CompiledQuery, ...rest: unknown[]) {
    seen.push(query);
    return original.call(this, query, ...rest);
  };
  const plugin: KyselyPlugin = { transformQuery: (args) => args.node, transformResult: async (args) => args.result };
  try {
    await run(db.withPlugin(plugin));
  } finally {
    proto.executeQuery = original;
  }
  return seen;
}

/** The plan of a captured statement, as text (PostgreSQL: EXPLAIN; SQLite: EXPLAIN QUERY PLAN). */
async function planOf(q: CompiledQuery): Promise<string> {
  const explain = isPostgres(db) ? "EXPLAIN " : "EXPLAIN QUERY PLAN ";
  const r = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + q.sql, [...q.parameters]));
  return r.rows.map((row) => String(row["QUERY PLAN"] ?? row.detail)).join("\n");
}

test("the give-up check, the claim and the completion find their rows through indexes with 6,000 jobs queued", async () => {
  await backlog(6_000);
  if (isPostgres(db)) await db.executeQuery(CompiledQuery.raw("ANALYZE jobs"));
  const sent = await captured(async (spy) => {
    expect(await exhaustedJobs(spy)).toEqual([]);
    const job = await claimJob(spy);
    expect(job).toMatchObject({ kind: "analyse", attempts: 1 });
    expect(await completeJob(spy, job!)).toBe(true);
  });
  const statements = sent.filter((q) => /"jobs"/.test(q.sql));
  expect(statements.length).toBeGreaterThanOrEqual(3);
  for (const q of statements) {
    const plan = await planOf(q);
    // A scan or an OR of states walks every queued job; a sort of jobs sorts all of them.
    if (isPostgres(db)) {
      expect({ sql: q.sql, plan }).not.toMatchObject({ plan: expect.stringMatching(/Seq Scan on jobs|Bitmap Heap Scan on jobs|BitmapOr/) });
      if (/order by "priority" desc/.test(q.sql)) expect({ sql: q.sql, plan }).not.toMatchObject({ plan: expect.stringMatching(/Sort/) });
      // The primary key only to find one job by its id (else a walk of every job, filtering).
      if (/Index Scan using jobs_pkey/.test(plan)) expect({ sql: q.sql, plan }).toMatchObject({ plan: expect.stringMatching(/Index Cond: \(id = /) });
    } else {
      expect({ sql: q.sql, plan }).not.toMatchObject({ plan: expect.stringMatching(/SCAN jobs|MULTI-INDEX OR/) });
    }
  }
});
