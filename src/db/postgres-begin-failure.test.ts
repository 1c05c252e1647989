/**
 * A plain transaction on PostgreSQL begins and takes the write lock in one round trip
 * (`begin; select pg_advisory_xact_lock(…)`, src/db/postgres.ts). When taking the lock fails after
 * `begin` ran — the operator's `lock_timeout` or `statement_timeout`, a cancelled query — Kysely
 * does not roll back (the transaction "never began" for it), so the connection must not go back to
 * the pool inside an aborted transaction: every later query on it would fail with 25P02.
 */
import { expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { openPostgres } from "./postgres.ts";
import { dropTestDatabase, onPostgres, testDatabaseUrl } from "../../test/helpers/db.ts";

test.skipIf(!onPostgres)(
  "a write transaction whose lock wait times out leaves a usable connection behind (PostgreSQL only: the advisory write lock)",
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "review-begin-"));
    const url = (await testDatabaseUrl(dir))!;
    const holder = openPostgres(url);
    const db = openPostgres(url, { max: 1 });
    try {
      // Only this test's connections wait at most 100 ms for a lock.
      await sql`select set_config('lock_timeout', '100ms', false)`.execute(db);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const holding = holder.transaction().execute(async () => {
        locked();
        await held;
      });
      await isLocked;
      const refused = await db
        .transaction()
        .execute(async (trx) => sql`select 1`.execute(trx))
        .then(
          () => "committed",
          (err: { code?: string }) => err.code ?? "error",
        );
      expect(refused).toBe("55P03"); // lock_not_available
      release();
      await holding;
      // The pool's one connection is used again: it must not still be inside the failed transaction.
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(rows[0]!.one).toBe(1);
      const status = await db.transaction().execute(async (trx) => (await sql<{ n: number }>`select 2 as n`.execute(trx)).rows[0]!.n);
      expect(status).toBe(2);
    } finally {
      await db.destroy();
      await holder.destroy();
      await dropTestDatabase(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
