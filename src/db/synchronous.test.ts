/**
 * `EARSHOT_SQLITE_SYNCHRONOUS` (DESIGN §14; issue 22, item 5; docs/decisions/sqlite-durability.md):
 * the server's SQLite connection syncs the WAL at every commit by default (`FULL`: an
 * acknowledged write survives a power cut) and only at checkpoints when the operator chooses
 * `normal`; other values stop the configuration. The connection is the one the app is wired with
 * (createAppDeps), on a real file.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAppDeps } from "../app-deps.ts";
import { loadConfig } from "../config.ts";
import { JOURNAL_SIZE_LIMIT_BYTES } from "./client.ts";
import { sqliteHandleOf } from "./direct.ts";
import { onPostgres } from "../../test/helpers/db.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** `PRAGMA name` on the wired app's own SQLite connection. */
async function pragmasOfServer(env: Record<string, string>): Promise<{ synchronous: number; journal_size_limit: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-synchronous-"));
  dirs.push(dir);
  const wiring = await createAppDeps(loadConfig({ EARSHOT_LOG_LEVEL: "silent", ...env }, { dataDir: dir }), { webAssets: new Map() });
  try {
    const handle = sqliteHandleOf(wiring.db)!;
    const value = (name: string) => Number(Object.values(handle.query(`PRAGMA ${name}`).get() as object)[0]);
    return { synchronous: value("synchronous"), journal_size_limit: value("journal_size_limit") };
  } finally {
    await wiring.close();
  }
}

test.skipIf(onPostgres)(
  "the server's SQLite connection syncs every commit unless EARSHOT_SQLITE_SYNCHRONOUS=normal (SQLite only: a pragma of the SQLite file)",
  async () => {
    // SQLite's values: 1 = NORMAL (WAL synced at checkpoints), 2 = FULL (WAL synced at every commit).
    expect(await pragmasOfServer({})).toEqual({ synchronous: 2, journal_size_limit: JOURNAL_SIZE_LIMIT_BYTES });
    expect((await pragmasOfServer({ EARSHOT_SQLITE_SYNCHRONOUS: "full" })).synchronous).toBe(2);
    expect((await pragmasOfServer({ EARSHOT_SQLITE_SYNCHRONOUS: "normal" })).synchronous).toBe(1);
  },
);

test("EARSHOT_SQLITE_SYNCHRONOUS takes full or normal, defaults to full, and refuses anything else", () => {
  expect(loadConfig({}).sqliteSynchronous).toBe("full");
  expect(loadConfig({ EARSHOT_SQLITE_SYNCHRONOUS: "normal" }).sqliteSynchronous).toBe("normal");
  for (const bad of ["off", "FULL", "extra", ""]) expect(() => loadConfig({ EARSHOT_SQLITE_SYNCHRONOUS: bad })).toThrow(/EARSHOT_SQLITE_SYNCHRONOUS/);
});
