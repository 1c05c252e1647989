/**
 * @module intake/write-batch
 * Group commit for the intake's write transactions (issue 14): respondents' writes that arrive
 * while one write transaction is running are run together, one after the other, in the next one,
 * and committed once. Every caller's promise settles only after the COMMIT that holds its writes,
 * so "acknowledged = committed" stays true (an answer acknowledged with 200 survives `kill -9`,
 * test/integration/intake-durability.test.ts). A unit that throws rejects with its own error: when
 * it had written nothing (the usual refusals: submitted session, missing answer — checked before
 * any write), the batch goes on; when it had written, the transaction is rolled back and the other
 * units run again in the next one (so a unit's function may run more than once and must have no
 * effect outside its transaction). A failed COMMIT rejects every unit of the batch.
 *
 * Why: on SQLite every commit appends the pages it touched to the WAL — the response and answer
 * rows with their indexes, the search index's segment, the workspace's change counter — and most
 * of those pages are the same for concurrent respondents, so one commit for many units writes far
 * less than one per unit. On PostgreSQL every write transaction holds the cluster-wide write lock
 * (DESIGN §11) until its commit is flushed, so one commit for many units is one WAL flush instead
 * of many under that lock (bench/intake.ts, docs/performance.md "Intake"). Nothing waits to fill
 * a batch beyond one turn of the event loop, which lets requests already waiting for the
 * connection (behind the running transaction) join it.
 *
 * A failed unit is undone alone on PostgreSQL with a savepoint per unit. SQLite gets none: FTS5
 * flushes its pending index segment at every savepoint, which would undo most of the gain; there
 * `total_changes()` tells whether the failed unit had written.
 */
import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import { engineOf } from "../../db/engine.ts";
import type { Database } from "../../db/schema.ts";

type Unit = { fn: (trx: Transaction<Database>) => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };

/** Rows changed on the connection so far (SQLite's `total_changes()`, trigger writes included). */
const TOTAL_CHANGES = CompiledQuery.raw("SELECT total_changes() AS n");
const SAVEPOINT = CompiledQuery.raw("SAVEPOINT intake_unit");
const RELEASE = CompiledQuery.raw("RELEASE SAVEPOINT intake_unit");
const ROLLBACK_TO = CompiledQuery.raw("ROLLBACK TO SAVEPOINT intake_unit");

/** Runs write units in shared transactions; see the module comment. */
export type WriteBatcher = {
  /**
   * Runs `fn` in a write transaction shared with the other units queued meanwhile.
   * @returns `fn`'s result, once the transaction holding its writes has committed
   * @throws whatever `fn` threw (its writes rolled back), or the COMMIT's error
   */
  run<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
};

/** A batcher over `db` (one per database is enough: see {@link writeBatcherOf}). */
export function createWriteBatcher(db: Kysely<Database>): WriteBatcher {
  // PostgreSQL: a savepoint per unit (cheap there), so a failed unit is undone alone. SQLite: no
  // savepoints (FTS5 flushes its pending index segment at each one), see runBatch.
  const savepoints = engineOf(db).cheapSavepoints;
  let queue: Unit[] = [];
  let draining = false;

  const changes = async (trx: Transaction<Database>) => Number((await trx.executeQuery<{ n: number }>(TOTAL_CHANGES)).rows[0]!.n);

  /**
   * Runs `batch` in one transaction and settles its units after the COMMIT.
   * @returns the units to run again in a new transaction: those that had succeeded before a unit
   *   failed after writing (its writes could not be undone alone), in their order
   */
  async function runBatch(batch: Unit[]): Promise<Unit[]> {
    let trx: Awaited<ReturnType<ReturnType<Kysely<Database>["startTransaction"]>["execute"]>>;
    try {
      trx = await db.startTransaction().execute();
    } catch (err) {
      for (const u of batch) u.reject(err);
      return [];
    }
    const done: { unit: Unit; value: unknown }[] = [];
    try {
      let before = savepoints ? 0 : await changes(trx);
      for (const [i, u] of batch.entries()) {
        if (savepoints) {
          await trx.executeQuery(SAVEPOINT);
          try {
            done.push({ unit: u, value: await u.fn(trx) });
            await trx.executeQuery(RELEASE);
          } catch (error) {
            u.reject(error);
            await trx.executeQuery(ROLLBACK_TO);
            await trx.executeQuery(RELEASE);
          }
          continue;
        }
        try {
          done.push({ unit: u, value: await u.fn(trx) });
          if (i < batch.length - 1) before = await changes(trx);
        } catch (error) {
          // Most refusals (a submitted session, a missing answer) come before the unit writes:
          // nothing to undo, the batch goes on. A unit that failed after writing cannot be undone
          // alone without a savepoint per unit (which makes FTS5 flush a segment each time): the
          // transaction is rolled back and the others run again in the next one.
          u.reject(error);
          if ((await changes(trx)) !== before) {
            await trx.rollback().execute();
            return [...done.map((d) => d.unit), ...batch.slice(i + 1)];
          }
        }
      }
      await trx.commit().execute();
    } catch (err) {
      // A statement of the batcher's own or the COMMIT failed: nothing of this batch is kept.
      await trx
        .rollback()
        .execute()
        .catch(() => {});
      for (const u of batch) u.reject(err);
      return [];
    }
    for (const d of done) d.unit.resolve(d.value);
    return [];
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length) {
        // One turn of the event loop first: requests waiting for the connection (their link and
        // session reads queue behind the running transaction) reach `run` and join this batch.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const batch = queue;
        queue = [];
        queue = [...(await runBatch(batch)), ...queue];
      }
    } finally {
      draining = false;
    }
  }

  return {
    run<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        if (!draining) void drain();
      });
    },
  };
}

const batchers = new WeakMap<Kysely<Database>, WriteBatcher>();

/** The one batcher of `db`, made at first use. */
export function writeBatcherOf(db: Kysely<Database>): WriteBatcher {
  let b = batchers.get(db);
  if (!b) {
    b = createWriteBatcher(db);
    batchers.set(db, b);
  }
  return b;
}
