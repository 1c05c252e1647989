/**
 * The `earshot` CLI contract (DESIGN §2), run as real processes on a temporary data directory.
 */
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli } from "../helpers/process.ts";
import { onPostgres } from "../helpers/db.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-cli-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test("workspace, token, migrate and backup commands keep their contract", async () => {
  const created = await runCli(["workspace", "create", "--name", "Acme Research", "--plan", "pro", "--json"], { dataDir });
  expect(created.code).toBe(0);
  const ws = JSON.parse(created.stdout);
  expect(Object.keys(ws).sort()).toEqual(["api_key", "token_uuid", "workspace_slug", "workspace_uuid"]);
  expect(ws.workspace_slug).toBe("acme-research");
  expect(ws.api_key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
  expect(created.stdout.trim().split("\n")).toHaveLength(1);

  const dup = await runCli(["workspace", "create", "--name", "X", "--slug", "acme-research"], { dataDir });
  expect(dup.code).not.toBe(0);
  expect(dup.stderr).toContain("taken");
  const badPlan = await runCli(["workspace", "create", "--name", "X", "--plan", "gold"], { dataDir });
  expect(badPlan.code).not.toBe(0);

  const list = JSON.parse((await runCli(["workspace", "list", "--json"], { dataDir })).stdout);
  expect(list.map((w: { slug: string }) => w.slug)).toEqual(["acme-research"]);

  const token = JSON.parse(
    (await runCli(["token", "create", "--workspace", ws.workspace_uuid, "--name", "CI", "--scopes", "links:read,responses:read", "--json"], { dataDir }))
      .stdout,
  );
  expect(token).toMatchObject({ name: "CI", scopes: ["links:read", "responses:read"] });
  expect(token.key).toMatch(/^sk_live_/);
  const badScope = await runCli(["token", "create", "--workspace", ws.workspace_uuid, "--name", "x", "--scopes", "root"], { dataDir });
  expect(badScope.code).not.toBe(0);
  const tokens = JSON.parse((await runCli(["token", "list", "--workspace", ws.workspace_uuid, "--json"], { dataDir })).stdout);
  expect(tokens.map((t: { uuid: string }) => t.uuid).sort()).toEqual([ws.token_uuid, token.uuid].sort());
  expect(JSON.stringify(tokens)).not.toContain(token.key);
  expect((await runCli(["token", "revoke", token.uuid], { dataDir })).code).toBe(0);
  expect((await runCli(["token", "revoke", token.uuid], { dataDir })).code).not.toBe(0);
  expect(JSON.parse((await runCli(["token", "list", "--workspace", ws.workspace_uuid, "--json"], { dataDir })).stdout)).toHaveLength(1);

  expect((await runCli(["migrate"], { dataDir })).stdout).toContain("up to date");

  const backup = path.join(dataDir, "backups", "earshot.tar");
  const b = await runCli(["backup", backup], { dataDir });
  if (onPostgres) {
    // The blobs are in the database on PostgreSQL: `earshot backup` refuses and names pg_dump (docs/operations.md).
    expect([b.code, b.stderr.includes("pg_dump")]).toEqual([2, true]);
    return;
  }
  expect(b.code).toBe(0);
  // One archive (test/integration/backup-restore.test.ts restores it): the snapshot inside is the database.
  const unpacked = path.join(dataDir, "unpacked");
  fs.mkdirSync(unpacked);
  await Bun.$`tar -xf ${backup} -C ${unpacked} earshot.db`.quiet();
  const copy = new Database(path.join(unpacked, "earshot.db"), { readonly: true });
  expect(copy.query("SELECT slug FROM workspaces").all()).toEqual([{ slug: "acme-research" }]);
  copy.close();
  expect((await runCli(["backup", backup], { dataDir })).code).not.toBe(0); // never overwrites
}, 30_000); // a dozen CLI processes; each starts Bun
