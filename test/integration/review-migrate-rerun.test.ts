/**
 * `earshot migrate-to-postgres` re-runs (docs/operations.md "Re-running is safe"): a re-run that
 * only finds new rows on the appliance copies them; a re-run after the appliance deleted a row
 * (a pruned job, an erased response) is refused before anything is copied — also when as many
 * rows were added meanwhile, so the counts alone look fine. Before, that case copied the new rows,
 * kept the deleted one in PostgreSQL, and only failed in the final count check. The source is
 * always SQLite; the target is this run's PostgreSQL (skipped on the SQLite run).
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
  "a re-run copies new rows, and refuses before copying when the appliance deleted a row since, even with as many added (PostgreSQL only: the target)",
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
      const before = await jobsThere();
      // The appliance prunes a finished job and queues two new ones: 4 rows here, 3 there.
      const pruned = before[0]!;
      await source.deleteFrom("jobs").where("id", "=", pruned).execute();
      await queue(source, 2);
      const refused = await migrateToPostgres(source, target, blobs, () => {}).then(
        () => null,
        (err: { code?: string; message: string }) => err,
      );
      expect(refused?.code).toBe("VALIDATION_ERROR");
      expect(refused?.message).toContain("jobs (1 row not in the appliance)");
      // Refused before copying: the target is as it was.
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
