/**
 * @module test/helpers/write-lock
 * Makes a request-vs-change race happen in a known order, for the tests of the in-transaction
 * re-checks (a key revoked, a member demoted while their write waits; DESIGN §5): the test holds
 * the database's write lock, sends the request, waits until it can SEE the server waiting for that
 * lock, then makes its change and commits. The request was authenticated against the old state
 * (reads are not blocked) and is parked just before its write transaction's first statement, the
 * re-check; so the re-check is what has to refuse it.
 *
 * How the waiting is seen, without touching the server:
 * - SQLite: the test's `BEGIN IMMEDIATE` holds the write lock; the server's own `BEGIN IMMEDIATE`
 *   then spins in SQLite's busy handler on its JavaScript thread (bun:sqlite is synchronous),
 *   which sleeps between attempts: the kernel shows that thread in `nanosleep`
 *   (`/proc/<pid>/wchan`), where an idle or working server is in `epoll_wait` or running.
 * - PostgreSQL: every plain write transaction takes one advisory lock (src/db/postgres.ts); the
 *   test's transaction holds it, and the request shows up in `pg_locks` as an advisory lock not
 *   granted, in the data directory's own database.
 *
 * Only the request under test may write meanwhile: start the server with
 * `EARSHOT_JOBS_PAUSED=1` and a long `EARSHOT_OUTBOX_POLL_MS`, and send no API-key request
 * shortly before (a key's usage is written 0.5 s later, in a write transaction of its own).
 */
import fs from "node:fs";
import { sql, type Transaction } from "kysely";
import type { Db } from "../../src/db/client.ts";
import { isPostgres } from "../../src/db/dialect.ts";
import type { Database } from "../../src/db/schema.ts";

/** How long the request may take to reach its write transaction (a loaded machine). */
const REACH_TIMEOUT_MS = 30_000;
/** How long the server must not wait for the lock before the request is sent (no other write pending). */
const QUIET_MS = 400;
/** SQLite: consecutive samples that must show the thread sleeping in the busy handler. */
const SLEEP_SAMPLES = 3;

/** True while `pid`'s main thread sleeps in `nanosleep` (SQLite's busy handler between attempts); "0" while it runs. */
function sleepingInBusyHandler(pid: number): boolean {
  return /nanosleep/.test(fs.readFileSync(`/proc/${pid}/wchan`, "utf8"));
}

/** Number of write transactions waiting for the write lock in the current PostgreSQL database. */
async function advisoryWaiters(trx: Transaction<Database>): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_locks
    where locktype = 'advisory' and not granted
      and database = (select oid from pg_database where datname = current_database())`.execute(trx);
  return rows[0]!.n;
}

/**
 * Polls until the server is seen waiting for the write lock the test holds.
 * @param until stop (returning false) once this is true; checked before every sample
 * @returns true when seen waiting, false when `until` came first
 */
async function seenWaiting(trx: Transaction<Database>, pid: number, until: () => boolean): Promise<boolean> {
  const postgres = isPostgres(trx);
  let seen = 0;
  while (seen < (postgres ? 1 : SLEEP_SAMPLES)) {
    if (until()) return false;
    const waiting = postgres ? (await advisoryWaiters(trx)) > 0 : sleepingInBusyHandler(pid);
    seen = waiting ? seen + 1 : 0;
    await Bun.sleep(postgres ? 20 : 3);
  }
  return true;
}

/**
 * Holds the write lock, checks that nothing else of the server's wants it (else lets that write
 * through and tries again), sends `request`, waits until the server is seen waiting for the lock,
 * runs `change` in the lock's transaction and commits it; then lets the request finish.
 * @param db a second connection (pool) to the server's database (`openTestDatabase(dataDir)`)
 * @param serverPid the server process (`server.proc.pid`); its main thread runs the requests
 * @returns the request's response
 * @throws Error when the request answered before it waited for the lock, did not reach it in
 *   30 s, or the server kept writing something else
 */
export async function raceWithWriteLock(
  db: Db,
  serverPid: number,
  request: () => Promise<Response>,
  change: (trx: Transaction<Database>) => Promise<unknown>,
): Promise<Response> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const response = await db.transaction().execute(async (trx) => {
      // Another write of the server's (its start-up housekeeping, a key's usage) would be seen
      // waiting in place of the request: let it through first.
      const quietUntil = Date.now() + QUIET_MS;
      if (await seenWaiting(trx, serverPid, () => Date.now() > quietUntil)) return null;
      let answered: Response | null = null;
      const inFlight = request();
      inFlight.then(
        (res) => {
          answered = res;
        },
        () => {},
      );
      const deadline = Date.now() + REACH_TIMEOUT_MS;
      if (!(await seenWaiting(trx, serverPid, () => answered !== null || Date.now() > deadline))) {
        throw new Error(
          answered
            ? `the request answered ${(answered as Response).status} before it waited for the write lock`
            : `the request was not seen waiting for the write lock within ${REACH_TIMEOUT_MS} ms${isPostgres(db) ? "" : ` (/proc/${serverPid}/wchan never showed nanosleep)`}`,
        );
      }
      await change(trx);
      return { inFlight }; // wrapped: returning the promise itself would hold the commit until it settles
    });
    if (response) return response.inFlight;
    await Bun.sleep(200);
  }
  throw new Error("the server kept writing something else while the test held the write lock");
}
