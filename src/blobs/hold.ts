/**
 * @module blobs/hold
 * While `earshot backup` runs, blobs the server deletes are held, not removed (DESIGN §14;
 * docs/operations.md "Backup and restore"). The backup reads the database snapshot first and
 * copies the blobs it references afterwards; a response erased (or a recording replaced) in
 * between has its blob deleted after the snapshot, which still references it. So the backup
 * process keeps a marker file, `<blobs>/.backup-hold`, fresh while it runs, and the local blob
 * store moves a blob it deletes under `<blobs>/.held/<key>` instead of unlinking it while the
 * marker is fresh. The backup copies a missing blob from there; when it ends it removes the
 * marker and the held blobs, which completes those deletions.
 *
 * A backup that dies leaves a marker that goes stale after {@link HOLD_FRESH_MS}; deletions are no
 * longer held then, and the hourly intake purge removes what was held ({@link releaseStaleHold}).
 * The check happens after the deleting transaction committed, which is after the snapshot began
 * when the snapshot still references the blob, which is after the marker was written: a deletion
 * that matters always sees the marker.
 */
import fs from "node:fs/promises";
import path from "node:path";

/** The marker file under the blob directory. */
export const HOLD_FILE = ".backup-hold";
/** Where held blobs go under the blob directory (`.held/<prefix>/<uuid>`). */
export const HELD_DIR = ".held";
/** A marker older than this is stale (its backup died): deletions go ahead. */
export const HOLD_FRESH_MS = 60_000;
/** How often a running backup refreshes its marker. */
const HEARTBEAT_MS = 10_000;

/** Where a held blob lives. */
export function heldPath(root: string, key: string): string {
  return path.join(root, HELD_DIR, key);
}

/** True when a backup holds deletions now (its marker exists and is fresh). */
export async function isHoldActive(root: string, nowMs = Date.now()): Promise<boolean> {
  const stat = await fs.stat(path.join(root, HOLD_FILE)).catch(() => null);
  return !!stat && nowMs - stat.mtimeMs < HOLD_FRESH_MS;
}

/**
 * Deletes a blob file, or moves it under `.held/` while a backup holds deletions.
 * @param file the blob's path (`<root>/<key>`); a missing file is not an error
 */
export async function removeBlobFile(root: string, key: string, file: string): Promise<void> {
  if (await isHoldActive(root)) {
    const held = heldPath(root, key);
    await fs.mkdir(path.dirname(held), { recursive: true });
    await fs.rename(file, held).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") throw err;
    });
    return;
  }
  await fs.rm(file, { force: true });
}

/** A running hold; `release` ends it and removes the held blobs. */
export interface BlobHold {
  release(): Promise<void>;
}

/**
 * Starts holding deletions under `root` (created when missing).
 * @throws Error when another backup holds them now (a fresh marker)
 */
export async function startHold(root: string): Promise<BlobHold> {
  await fs.mkdir(root, { recursive: true });
  const marker = path.join(root, HOLD_FILE);
  if (await isHoldActive(root)) throw new Error(`Another backup is running (${marker} is fresh); wait for it to finish.`);
  // Blobs a dead backup left held were deleted by the server: finish those deletions first.
  await fs.rm(path.join(root, HELD_DIR), { recursive: true, force: true });
  await fs.writeFile(marker, `${process.pid}\n`);
  const timer = setInterval(() => {
    const now = new Date();
    fs.utimes(marker, now, now).catch(() => undefined);
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    async release() {
      clearInterval(timer);
      await fs.rm(marker, { force: true });
      await fs.rm(path.join(root, HELD_DIR), { recursive: true, force: true });
    },
  };
}

/**
 * Removes what a dead backup left (a stale marker and the blobs it held); does nothing while a
 * backup holds deletions.
 * @returns true when deletions are free to go ahead (no fresh marker)
 */
export async function releaseStaleHold(root: string): Promise<boolean> {
  if (await isHoldActive(root)) return false;
  await fs.rm(path.join(root, HOLD_FILE), { force: true });
  await fs.rm(path.join(root, HELD_DIR), { recursive: true, force: true });
  return true;
}
