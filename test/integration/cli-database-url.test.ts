/**
 * `--database-url` / `EARSHOT_DATABASE_URL` (DESIGN §11): every command takes the flag, a URL that
 * is not PostgreSQL is refused, and with PostgreSQL nothing is written to the SQLite file.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli } from "../helpers/process.ts";
import { onPostgres, testDatabaseUrl } from "../helpers/db.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-dburl-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test("a database URL that is not postgres:// is refused, as a flag or in the environment", async () => {
  const flag = await runCli(["workspace", "list", "--database-url", "mysql://db/earshot"], { dataDir });
  expect(flag.code).not.toBe(0);
  expect(flag.stderr).toContain("postgres://");
  const env = await runCli(["workspace", "list"], { dataDir, env: { EARSHOT_DATABASE_URL: "sqlite:///tmp/x.db" } });
  expect(env.code).toBe(2);
  expect(env.stderr).toContain("EARSHOT_DATABASE_URL");
  expect(fs.existsSync(path.join(dataDir, "earshot.db"))).toBe(false);
});

test.skipIf(!onPostgres)(
  "--database-url on workspace create and token create reaches PostgreSQL, not the SQLite file (PostgreSQL only: the flag's target)",
  async () => {
    const url = (await testDatabaseUrl(dataDir))!;
    const noEnv = { EARSHOT_DATABASE_URL: "" }; // only the flag names the database
    const created = await runCli(["workspace", "create", "--name", "Flagged", "--json", "--database-url", url], { dataDir, env: noEnv });
    expect(created.code).toBe(0);
    const ws = JSON.parse(created.stdout);
    const token = await runCli(["token", "create", "--workspace", ws.workspace_uuid, "--name", "CI", "--json", "--database-url", url], { dataDir, env: noEnv });
    expect(token.code).toBe(0);
    expect(fs.existsSync(path.join(dataDir, "earshot.db"))).toBe(false);
    // The same database through the environment variable.
    const tokens = JSON.parse(
      (await runCli(["token", "list", "--workspace", ws.workspace_uuid, "--json"], { dataDir, env: { EARSHOT_DATABASE_URL: url } })).stdout,
    );
    expect(tokens).toHaveLength(2);
  },
);
