/**
 * A PostgreSQL connection that dies while the pool has lent it out (the server restarts or an
 * operator terminates the backend in the middle of a transaction) must fail that transaction
 * only: `pg` emits `error` on the lent client, and with no listener that is an uncaught
 * exception (a stack trace in the log and exit code 1 at shutdown under Bun; a crash under Node).
 */
import { expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dropTestDatabase, onPostgres, testDatabaseUrl } from "../../test/helpers/db.ts";

const script = `
import { sql } from "kysely";
import { openDatabase } from "${path.resolve(import.meta.dir, "client.ts")}";
const db = openDatabase(process.env.URL);
const admin = openDatabase(process.env.URL);
let caught = "";
try {
  await db.transaction().execute(async (trx) => {
    const { rows } = await sql\`select pg_backend_pid() as pid\`.execute(trx);
    await sql\`select pg_terminate_backend(\${rows[0].pid})\`.execute(admin);
    await new Promise((r) => setTimeout(r, 300));
    await sql\`select 1\`.execute(trx);
  });
} catch (e) { caught = e.message; }
const { rows } = await sql\`select 1 as one\`.execute(db);
await new Promise((r) => setTimeout(r, 300));
await db.destroy();
await admin.destroy();
console.log(JSON.stringify({ caught, one: rows[0].one }));
`;

test.skipIf(!onPostgres)(
  "a connection terminated mid-transaction fails that transaction, not the process (PostgreSQL only: SQLite has no connections to lose)",
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "review-connloss-"));
    const file = path.join(dir, "loss.ts");
    fs.writeFileSync(file, script);
    try {
      const url = (await testDatabaseUrl(dir))!;
      const child = Bun.spawnSync([process.execPath, file], {
        cwd: path.resolve(import.meta.dir, "../.."),
        env: { ...process.env, URL: url },
        stderr: "pipe",
        stdout: "pipe",
      });
      const out = child.stdout.toString();
      const err = child.stderr.toString();
      expect(JSON.parse(out.trim().split("\n").pop()!)).toMatchObject({ one: 1 });
      expect(out).not.toContain('"caught":""');
      expect(err).not.toContain("Connection terminated unexpectedly");
      expect(child.exitCode).toBe(0);
    } finally {
      await dropTestDatabase(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
