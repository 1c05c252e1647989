/**
 * @module commands/backup-restore
 * `earshot backup --verify FILE` and `earshot restore FILE --data DIR` (DESIGN §2, §14;
 * docs/operations.md "Backup and restore"). A restore goes into an empty data directory only. It
 * writes into a staging folder inside that directory, checks every SHA-256, the counts and the
 * database against the manifest, and only then renames `earshot.db` and `blobs/` into place:
 * nothing of a bad archive ever becomes visible as data.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrations } from "../db/migrations/index.ts";
import { DATABASE_ENTRY, type Manifest } from "./backup-manifest.ts";
import { checkArchive, readArchive } from "./backup-read.ts";

/** Why an archive was refused: every problem found. */
export class ArchiveInvalidError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file} is not a sound Earshot backup:\n  ${problems.join("\n  ")}`);
  }
}

/** A migration this Earshot does not have: the archive comes from a newer version. */
function newerThanThis(m: Manifest): string | null {
  return m.migration && !(m.migration in migrations)
    ? `The archive was made by Earshot ${m.earshot_version} (database migration ${m.migration}), newer than this one: restore it with that version or later.`
    : null;
}

/**
 * Reads and checks an archive without restoring it (the database goes to a temporary folder).
 * @param onBytes archive bytes read so far, of `total`
 * @returns the manifest
 * @throws ArchiveInvalidError listing every problem; Error when the file cannot be read as tar
 */
export async function verifyBackup(file: string, onBytes?: (read: number, total: number) => void): Promise<Manifest> {
  if (!fs.existsSync(file)) throw new Error(`${path.resolve(file)} does not exist.`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-verify-"));
  try {
    const dbFile = path.join(work, DATABASE_ENTRY);
    const contents = await readArchive(path.resolve(file), { database: dbFile, blob: () => null }, onBytes);
    const problems = checkArchive(contents, dbFile);
    if (problems.length) throw new ArchiveInvalidError(file, problems);
    return contents.manifest!;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Restores an archive into `dataDir`, which must be empty or absent.
 * @returns the manifest of what was restored
 * @throws Error when `dataDir` is not empty (nothing is written then); ArchiveInvalidError when the
 *   archive fails a check (the staging folder is removed, `dataDir` stays as it was)
 */
export async function restoreBackup(file: string, dataDir: string, onBytes?: (read: number, total: number) => void): Promise<Manifest> {
  const archive = path.resolve(file);
  const target = path.resolve(dataDir);
  if (!fs.existsSync(archive)) throw new Error(`${archive} does not exist.`);
  if (fs.existsSync(target)) {
    if (!fs.statSync(target).isDirectory()) throw new Error(`${target} is not a directory.`);
    const present = fs.readdirSync(target);
    if (present.length)
      throw new Error(
        `${target} is not empty (${present.slice(0, 3).join(", ")}${present.length > 3 ? ", …" : ""}): restore only into an empty data directory.`,
      );
  }
  fs.mkdirSync(target, { recursive: true });
  const staging = fs.mkdtempSync(path.join(target, ".restore-"));
  try {
    const dbFile = path.join(staging, DATABASE_ENTRY);
    const blobsDir = path.join(staging, "blobs");
    const contents = await readArchive(archive, { database: dbFile, blob: (key) => path.join(blobsDir, key) }, onBytes);
    const problems = checkArchive(contents, dbFile);
    const newer = contents.manifest && newerThanThis(contents.manifest);
    if (newer) problems.push(newer);
    if (problems.length) throw new ArchiveInvalidError(file, problems);
    fs.mkdirSync(blobsDir, { recursive: true });
    fs.renameSync(blobsDir, path.join(target, "blobs"));
    fs.renameSync(dbFile, path.join(target, DATABASE_ENTRY));
    return contents.manifest!;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
