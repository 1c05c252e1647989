/**
 * The operator commands of issue 26 over real processes (DESIGN §2, §14), on both engines:
 * `earshot --version`, `-V` and `version` print package.json's version; `serve` prints a fresh setup
 * URL at every start while no owner exists (and stops once one does); `earshot setup-url` gives a
 * fresh one that works and voids the earlier ones, and refuses once an owner exists; `earshot
 * healthcheck` exits 1 when nothing answers; an older build meeting a database migrated by a newer
 * one refuses `serve` and `migrate` with a message naming both versions and the unknown migration.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import pkg from "../../package.json" with { type: "json" };
import { freePort, runCli, startServer } from "../helpers/process.ts";
import { dropTestDatabase, openTestDatabase } from "../helpers/db.ts";

const dirs: string[] = [];
function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-ops-cli-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) {
    await dropTestDatabase(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const SETUP_URL = /(http:\/\/localhost:\d+\/console\/setup\/\?token=[A-Za-z0-9_-]+)/g;

test("--version, -V and version print package.json's version", async () => {
  const dataDir = newDataDir();
  for (const args of [["--version"], ["-V"], ["version"]]) {
    const r = await runCli(args, { dataDir });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `${pkg.version}\n`, ""]);
  }
});

test("serve prints a fresh setup URL at every start until an owner exists; setup-url gives one that works and voids the others", async () => {
  const dataDir = newDataDir();
  const setupWith = async (baseUrl: string, url: string, email: string) =>
    fetch(`${baseUrl}/api/v1/auth/setup/`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: baseUrl },
      body: JSON.stringify({ token: new URL(url).searchParams.get("token"), name: "Olive Owner", email, password: "owner passphrase 7f3a9c" }),
    });
  const first = await startServer({ dataDir });
  const firstUrls = first.output().match(SETUP_URL) ?? [];
  await first.stop();
  expect(firstUrls.length).toBe(1);

  const second = await startServer({ dataDir });
  await second.stop();
  const secondUrls = second.output().match(SETUP_URL) ?? [];
  expect(secondUrls.length).toBe(1);
  expect(second.output()).toContain("The console has no owner yet");
  expect(secondUrls[0]).not.toBe(firstUrls[0]);

  const printed = await runCli(["setup-url"], { dataDir });
  expect(printed.code).toBe(0);
  const fresh = printed.stdout.trim();
  expect(fresh).toMatch(new RegExp(`^${SETUP_URL.source}$`));

  const third = await startServer({ dataDir, env: { EARSHOT_LOG_LEVEL: "warn" } });
  try {
    // The third start printed a newer URL, which voided the CLI's and the second start's: only the
    // newest URL printed is usable.
    const newest = (third.output().match(SETUP_URL) ?? [])[0]!;
    expect((await setupWith(third.baseUrl, fresh, "early@example.com")).status).toBe(404);
    expect((await setupWith(third.baseUrl, secondUrls[0]!, "early@example.com")).status).toBe(404);
    expect((await setupWith(third.baseUrl, newest, "olive@example.com")).status).toBe(201);
  } finally {
    await third.stop();
  }
  const refused = await runCli(["setup-url"], { dataDir });
  expect([refused.code, refused.stdout]).toEqual([1, ""]);
  expect(refused.stderr).toContain("the console has an owner already");
  const fourth = await startServer({ dataDir });
  await fourth.stop();
  expect(fourth.output()).not.toMatch(SETUP_URL);
}, 120_000);

test("healthcheck exits 1 when nothing answers at the URL", async () => {
  const dataDir = newDataDir();
  const port = await freePort();
  const r = await runCli(["healthcheck", "--url", `http://127.0.0.1:${port}`], { dataDir });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`http://127.0.0.1:${port}/healthz/ready did not answer`);
});

test("an older build refuses a database migrated by a newer one: serve and migrate exit non-zero naming both versions and the migration", async () => {
  const dataDir = newDataDir();
  expect((await runCli(["migrate"], { dataDir })).code).toBe(0);
  const db = await openTestDatabase(dataDir);
  try {
    // What a newer Earshot leaves: a migration this build lacks, and its version as the migrator.
    await sql`insert into kysely_migration (name, timestamp) values ('2099-01-01T0000-from-the-future', '2099-01-01T00:00:00.000Z')`.execute(db);
    await sql`update settings set value = '9.9.9' where key = 'migrated_by_version'`.execute(db);
  } finally {
    await db.destroy();
  }
  for (const args of [["migrate"], ["serve", "--port", String(await freePort())]]) {
    const r = await runCli(args, { dataDir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`This database was migrated by Earshot 9.9.9, newer than this Earshot ${pkg.version}`);
    expect(r.stderr).toContain("2099-01-01T0000-from-the-future");
    expect(r.stderr).toContain("docs/upgrading.md");
    expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  }
}, 60_000);
