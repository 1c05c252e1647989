/**
 * `earshot migrate-to-postgres` re-runs (docs/operations.md "Re-running is safe"): a re-run that
 * only finds new rows on the appliance copies them; a re-run after the appliance deleted a row
 * (a pruned job) deletes it in the target too — also when as many rows were added meanwhile, so
 * the counts alone look fine (issue 22; before, it was refused); a re-run after something else
 * wrote to the target is refused before anything is copied or deleted. The source is always
 * SQLite; the target is this run's PostgreSQL (skipped on the SQLite run).
 */
import { expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateToLatest, openDatabase } from "../../src/db/client.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { migrateToPostgres } from "../../src/commands/migrate-to-postgres.ts";
import { createWorkspace } from "../../src/modules/workspaces/service.ts";
import { dropTestDatabase, onPostgres, testDatabaseUrl } from "../helpers/db.ts";

const queue = (db: ReturnType<typeof openDatabase>, n: number) =>
  db.transaction().execute(async (trx) => {
    for (let i = 0; i < n; i++) await enqueueJob(trx, "analyse", { answer_uuid: crypto.randomUUID() });
  });

test.skipIf(!onPostgres)(
  "a re-run copies new rows, deletes the rows the appliance deleted since (even with as many added), and refuses a target written to since (PostgreSQL only: the target)",
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "review-migrate-"));
    const targetDir = fs.mkdtempSync(path.join(os.tmpdir(), "review-migrate-target-"));
    const source = openDatabase(path.join(dir, "earshot.db"));
    const target = openDatabase((await testDatabaseUrl(targetDir))!);
    const blobs = path.join(dir, "blobs");
    const jobsThere = async () => (await target.selectFrom("jobs").select("id").orderBy("id").execute()).map((r) => Number(r.id));
    try {
      await migrateToLatest(source);
      await createWorkspace(source, { name: "Appliance", plan: "enterprise" });
      await queue(source, 2);
      await migrateToPostgres(source, target, blobs, () => {});
      // Only additions: copied.
      await queue(source, 1);
      const again = await migrateToPostgres(source, target, blobs, () => {});
      expect(again.tables.find((t) => t.table === "jobs")).toEqual({ table: "jobs", source: 3, target: 3 });
      // The appliance prunes a finished job and queues two new ones: 4 rows here, 3 there, one of
      // them gone here. The re-run (the documented second pass) deletes it there too (issue 22).
      const pruned = (await jobsThere())[0]!;
      await source.deleteFrom("jobs").where("id", "=", pruned).execute();
      await queue(source, 2);
      const third = await migrateToPostgres(source, target, blobs, () => {});
      expect(third.deleted).toEqual({ jobs: 1 });
      const here = (await source.selectFrom("jobs").select("id").orderBy("id").execute()).map((r) => Number(r.id));
      expect(await jobsThere()).toEqual(here);
      expect(here).not.toContain(pruned);

      // Something else writes to the target after that run (a node started too early): refused before copying or deleting.
      await source.deleteFrom("jobs").where("id", "=", here[0]!).execute();
      await target.transaction().execute((trx) => enqueueJob(trx, "analyse", { answer_uuid: crypto.randomUUID() }));
      const before = await jobsThere();
      const refused = await migrateToPostgres(source, target, blobs, () => {}).then(
        () => null,
        (err: { code?: string; message: string }) => err,
      );
      expect(refused?.code).toBe("VALIDATION_ERROR");
      expect(refused?.message).toContain("jobs (1 row written there since the last run)");
      expect(await jobsThere()).toEqual(before);
    } finally {
      await source.destroy();
      await target.destroy();
      await dropTestDatabase(targetDir);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(targetDir, { recursive: true, force: true });
    }
  },
  120_000,
);
