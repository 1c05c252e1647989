/**
 * The blob hold of `earshot backup` (src/blobs/hold.ts): while a backup's marker is fresh, the
 * disk store moves deleted blobs under `.held/` and the intake purge leaves orphans alone; a
 * released or stale hold lets deletions go ahead and its leftovers are removed. Real files.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestApi } from "../../test/helpers/api.ts";
import { onPostgres } from "../../test/helpers/db.ts";
import { createLogger } from "../logger.ts";
import { purgeIntake } from "../modules/intake/purge.ts";
import { HELD_DIR, HOLD_FILE, HOLD_FRESH_MS, heldPath, releaseStaleHold, startHold } from "./hold.ts";
import { createLocalBlobStore } from "./store.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-hold-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const age = (file: string, ms: number) => {
  const then = new Date(Date.now() - ms);
  fs.utimesSync(file, then, then);
};

test("while a backup holds deletions, a deleted blob moves under .held/ until the hold is released", async () => {
  const blobs = createLocalBlobStore(path.join(root, "a"));
  const key = await blobs.put("audio", new TextEncoder().encode("kept for the backup"));
  const hold = await startHold(path.join(root, "a"));
  await expect(startHold(path.join(root, "a"))).rejects.toThrow("Another backup is running");
  await blobs.delete(key);
  expect(await blobs.size(key)).toBeNull(); // gone for the server
  expect(fs.readFileSync(heldPath(path.join(root, "a"), key), "utf8")).toBe("kept for the backup");
  await blobs.delete(key); // deleting it again is still not an error
  await hold.release();
  expect(fs.readdirSync(path.join(root, "a")).sort()).toEqual(["audio"]);
});

test("a stale marker (its backup died) holds nothing, and its leftovers are released", async () => {
  const dir = path.join(root, "b");
  const blobs = createLocalBlobStore(dir);
  const held = await blobs.put("files", new Uint8Array([1, 2, 3]));
  await startHold(dir); // never released: the backup "died"
  await blobs.delete(held);
  expect(await releaseStaleHold(dir)).toBe(false); // still fresh
  age(path.join(dir, HOLD_FILE), HOLD_FRESH_MS + 1000);
  const key = await blobs.put("files", new Uint8Array([4, 5, 6]));
  await blobs.delete(key);
  expect(fs.existsSync(heldPath(dir, key))).toBe(false);
  expect(await releaseStaleHold(dir)).toBe(true);
  expect([fs.existsSync(path.join(dir, HOLD_FILE)), fs.existsSync(path.join(dir, HELD_DIR))]).toEqual([false, false]);
  // A new backup may start once the marker is stale.
  await (await startHold(dir)).release();
});

test.skipIf(onPostgres)(
  "the intake purge leaves orphaned blobs alone while a backup runs (SQLite only: on PostgreSQL the blobs are in the database)",
  async () => {
    const api = await createTestApi();
    try {
      const blobs = createLocalBlobStore(api.config.blobsDir);
      const deps = { db: api.db, blobs, log: createLogger("silent"), blobsDir: api.config.blobsDir };
      const orphan = await blobs.put("audio", new Uint8Array([9]));
      age(blobs.localPath(orphan)!, 2 * 3600_000);
      const hold = await startHold(api.config.blobsDir);
      expect((await purgeIntake(deps, { retentionDays: 30 })).orphans).toBe(0);
      expect(await blobs.size(orphan)).toBe(1);
      await hold.release();
      expect((await purgeIntake(deps, { retentionDays: 30 })).orphans).toBe(1);
      expect(await blobs.size(orphan)).toBeNull();
    } finally {
      await api.close();
    }
  },
);
