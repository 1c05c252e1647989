/**
 * @module commands/backup-archive
 * Writes an Earshot backup archive (`earshot backup FILE`, DESIGN §14; layout in
 * src/commands/backup-manifest.ts; operator's guide in docs/operations.md "Backup and restore").
 *
 * 1. Deletions of blobs are held (src/blobs/hold.ts), so that a response erased while the backup
 *    runs keeps its blob until the backup has copied it.
 * 2. The database snapshot is taken (`VACUUM INTO`, one read transaction: consistent while the
 *    server writes).
 * 3. The blob keys are read from the snapshot — not from the live database or the directory — and
 *    each blob is streamed into the archive (from `blobs/`, or from `.held/` when deleted
 *    meanwhile), hashed on the way. Blobs written after the snapshot are not in it and not copied.
 * 4. `manifest.json` comes last; the archive is written as `FILE.partial` and renamed to `FILE`
 *    only when complete, so a file named FILE is always a whole archive.
 *
 * A blob the snapshot references that is missing from both places fails the backup, unless the
 * live database no longer references it either (erased after the snapshot without the hold, e.g.
 * a backup paused past the hold's freshness): then it is listed in `erased_during_backup`.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { createHash } from "node:crypto";
import { once } from "node:events";
import tar from "tar-stream";
import { nowIso } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { engineOf } from "../db/engine.ts";
import { isBlobReferenced, POSTGRES_BACKUP_ADVICE, snapshotBlobKeys, snapshotCounts, snapshotDatabase, snapshotMigration } from "../db/backup.ts";
import { heldPath, startHold } from "../blobs/hold.ts";
import { ARCHIVE_FORMAT, blobEntry, DATABASE_ENTRY, EARSHOT_VERSION, type Manifest, MANIFEST_ENTRY } from "./backup-manifest.ts";

/** Progress of a backup: bytes copied into the archive of `total` (the snapshot plus its blobs). */
export type BackupProgress = { phase: "snapshot" | "copy"; bytes: number; total: number; blobs: number; blobCount: number };

/** What a backup wrote. */
export type BackupReport = { file: string; manifest: Manifest; archiveBytes: number };

/** Opens a blob for reading: from `blobs/`, or from `.held/` when the server deleted it meanwhile. */
async function openBlob(blobsDir: string, key: string): Promise<fsp.FileHandle | null> {
  for (const file of [path.join(blobsDir, key), heldPath(blobsDir, key)]) {
    try {
      return await fsp.open(file, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return null;
}

/**
 * Streams `size` bytes of an open file into a new archive entry, hashing them.
 * @returns the SHA-256 (hex)
 * @throws Error when the file does not hold `size` bytes (a blob never changes once written)
 */
async function addEntry(pack: tar.Pack, name: string, handle: fsp.FileHandle, size: number, onBytes: (n: number) => void): Promise<string> {
  const hash = createHash("sha256");
  let written = 0;
  let settle!: (err?: Error | null) => void;
  const finished = new Promise<void>((res, rej) => {
    settle = (err) => (err ? rej(err) : res());
  });
  const entry = pack.entry({ name, size, mode: 0o600, mtime: new Date() }, (err) => settle(err));
  const chunks = size > 0 ? (handle.createReadStream({ autoClose: false, start: 0, end: size - 1 }) as AsyncIterable<Buffer>) : [];
  for await (const chunk of chunks) {
    hash.update(chunk);
    written += chunk.byteLength;
    onBytes(chunk.byteLength);
    if (!entry.write(chunk)) await once(entry, "drain");
  }
  if (written !== size) throw new Error(`${name} changed while it was copied (${written} of ${size} bytes).`);
  entry.end();
  await finished;
  return hash.digest("hex");
}

/**
 * Writes a backup archive of the appliance to `file` (DESIGN §14).
 * @param blobsDir `<data_dir>/blobs`
 * @param onProgress called as bytes are copied (drive a progress bar with it)
 * @returns the manifest written
 * @throws Error on PostgreSQL (use pg_dump), when `file` (or `file.partial`) exists, when another
 *   backup runs, or when a blob the snapshot references is missing while still referenced
 */
export async function writeBackup(db: Db, blobsDir: string, file: string, onProgress: (p: BackupProgress) => void = () => {}): Promise<BackupReport> {
  if (!engineOf(db).singleFile) throw new Error(POSTGRES_BACKUP_ADVICE);
  const target = path.resolve(file);
  const partial = `${target}.partial`;
  for (const f of [target, partial]) if (fs.existsSync(f)) throw new Error(`${f} already exists; choose a new file name.`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const work = fs.mkdtempSync(path.join(path.dirname(target), ".earshot-backup-"));
  const hold = await startHold(blobsDir);
  let out: fs.WriteStream | null = null;
  try {
    onProgress({ phase: "snapshot", bytes: 0, total: 0, blobs: 0, blobCount: 0 });
    const snapshot = path.join(work, DATABASE_ENTRY);
    await snapshotDatabase(db, snapshot);
    const keys = snapshotBlobKeys(snapshot);
    const dbSize = fs.statSync(snapshot).size;
    let total = dbSize;
    for (const key of keys) total += (await fsp.stat(path.join(blobsDir, key)).catch(() => null))?.size ?? 0;

    const pack = tar.pack();
    out = fs.createWriteStream(partial, { flags: "wx", mode: 0o600 });
    const written = new Promise<void>((res, rej) => {
      out!.once("close", res);
      out!.once("error", rej);
      pack.once("error", rej);
    });
    pack.pipe(out);
    const progress = { phase: "copy" as const, bytes: 0, total, blobs: 0, blobCount: keys.length };
    const onBytes = (n: number) => {
      progress.bytes += n;
      onProgress(progress);
    };

    const dbHandle = await fsp.open(snapshot, "r");
    let dbSha: string;
    try {
      dbSha = await addEntry(pack, DATABASE_ENTRY, dbHandle, dbSize, onBytes);
    } finally {
      await dbHandle.close();
    }
    const files: Manifest["files"] = [];
    const erased: string[] = [];
    for (const key of keys) {
      const handle = await openBlob(blobsDir, key);
      if (!handle) {
        if (await isBlobReferenced(db, key))
          throw new Error(`The blob ${key} is referenced by an answer but missing from ${blobsDir}; the data directory has lost it.`);
        erased.push(key);
        continue;
      }
      try {
        const size = (await handle.stat()).size;
        files.push({ key, size, sha256: await addEntry(pack, blobEntry(key), handle, size, onBytes) });
      } finally {
        await handle.close();
      }
      progress.blobs++;
      onProgress(progress);
    }
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      earshot_version: EARSHOT_VERSION,
      migration: snapshotMigration(snapshot),
      created_at: nowIso(),
      database: { size: dbSize, sha256: dbSha },
      counts: snapshotCounts(snapshot),
      blobs: { count: files.length, bytes: files.reduce((n, f) => n + f.size, 0) },
      erased_during_backup: erased,
      files,
    };
    pack.entry({ name: MANIFEST_ENTRY, mode: 0o600 }, `${JSON.stringify(manifest, null, 1)}\n`);
    pack.finalize();
    await written;
    const fd = fs.openSync(partial, "r");
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(partial, target);
    return { file: target, manifest, archiveBytes: fs.statSync(target).size };
  } catch (err) {
    out?.destroy();
    fs.rmSync(partial, { force: true });
    throw err;
  } finally {
    await hold.release();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
