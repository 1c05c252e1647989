/**
 * @module commands/backup-read
 * Reads and checks an Earshot backup archive (`earshot backup --verify FILE` and
 * `earshot restore FILE --data DIR`, DESIGN §14). An archive is treated as hostile input: only the
 * names of src/commands/backup-manifest.ts are accepted (no path leaves the target), each once,
 * regular files only, and the manifest is size-bounded before it is read. Every byte is hashed as
 * it streams past; nothing is trusted until {@link checkArchive} has compared it all with the
 * manifest.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { createHash } from "node:crypto";
import tar from "tar-stream";
import { checkSnapshotIntegrity, snapshotBlobKeys, snapshotCounts } from "../db/backup.ts";
import { DATABASE_ENTRY, keyOfEntry, type Manifest, MANIFEST_ENTRY, MANIFEST_MAX_BYTES, manifestSchema } from "./backup-manifest.ts";

/** Where the entries go: the database file's path, and a blob's path (null: hash it only). */
export type ArchiveSink = { database: string; blob: (key: string) => string | null };
/** What was read: the manifest (null when absent or invalid) and every entry's size and SHA-256. */
export type ArchiveContents = { manifest: Manifest | null; manifestError: string | null; entries: Map<string, { size: number; sha256: string }> };

/** Streams an entry to `file` (or nowhere), fsyncing it. @returns its size and SHA-256 */
async function drain(entry: AsyncIterable<Buffer>, file: string | null): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  let size = 0;
  let handle: fsp.FileHandle | null = null;
  if (file) {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    handle = await fsp.open(file, "wx", 0o600);
  }
  try {
    for await (const chunk of entry) {
      hash.update(chunk);
      size += chunk.byteLength;
      if (handle) await handle.write(chunk);
    }
    await handle?.sync();
  } finally {
    await handle?.close();
  }
  return { size, sha256: hash.digest("hex") };
}

/**
 * Reads every entry of the archive `file` into `sink`.
 * @param onBytes archive bytes read so far, of `total`
 * @throws Error on a name or entry type an archive never holds, a duplicate, an oversized
 *   manifest, or a truncated or unreadable tar file
 */
export async function readArchive(file: string, sink: ArchiveSink, onBytes: (read: number, total: number) => void = () => {}): Promise<ArchiveContents> {
  const total = fs.statSync(file).size;
  const input = fs.createReadStream(file);
  const extract = tar.extract();
  let read = 0;
  input.on("data", (chunk) => {
    read += chunk.length;
    onBytes(read, total);
  });
  input.on("error", (err) => extract.destroy(err));
  input.pipe(extract);
  const contents: ArchiveContents = { manifest: null, manifestError: "The archive has no manifest.json.", entries: new Map() };
  try {
    for await (const entry of extract) {
      const { name, type, size } = entry.header;
      const key = keyOfEntry(name);
      if (type !== "file" || (name !== DATABASE_ENTRY && name !== MANIFEST_ENTRY && key === null))
        throw new Error(`Not an Earshot backup: unexpected ${type} entry ${JSON.stringify(name)}.`);
      if (contents.entries.has(name) || (name === MANIFEST_ENTRY && contents.manifest)) throw new Error(`Not an Earshot backup: ${name} appears twice.`);
      if (name === MANIFEST_ENTRY) {
        if ((size ?? 0) > MANIFEST_MAX_BYTES) throw new Error(`manifest.json is larger than ${MANIFEST_MAX_BYTES} bytes.`);
        const parts: Buffer[] = [];
        for await (const chunk of entry as AsyncIterable<Buffer>) parts.push(chunk);
        let parsed: unknown;
        try {
          parsed = JSON.parse(Buffer.concat(parts).toString("utf8"));
        } catch {
          parsed = null;
        }
        const result = manifestSchema.safeParse(parsed);
        contents.manifest = result.success ? result.data : null;
        contents.manifestError = result.success ? null : `manifest.json is not a valid Earshot manifest: ${result.error?.issues[0]?.message ?? "not JSON"}.`;
        if (!result.success) break;
        continue;
      }
      contents.entries.set(name, await drain(entry as AsyncIterable<Buffer>, name === DATABASE_ENTRY ? sink.database : sink.blob(key!)));
    }
  } finally {
    input.destroy();
  }
  return contents;
}

/**
 * Compares what was read with the manifest, and the database file with both.
 * @param dbFile where {@link readArchive} wrote the database
 * @returns the problems found (empty: the archive is whole and consistent)
 */
export function checkArchive(contents: ArchiveContents, dbFile: string): string[] {
  const m = contents.manifest;
  if (!m) return [contents.manifestError ?? "The archive has no valid manifest.json."];
  const problems: string[] = [];
  const same = (name: string, want: { size: number; sha256: string }) => {
    const got = contents.entries.get(name);
    if (!got) problems.push(`${name} is missing.`);
    else if (got.size !== want.size || got.sha256 !== want.sha256) problems.push(`${name} differs from the manifest (size or SHA-256).`);
  };
  same(DATABASE_ENTRY, m.database);
  const listed = new Set<string>();
  for (const f of m.files) {
    listed.add(`blobs/${f.key}`);
    same(`blobs/${f.key}`, f);
  }
  for (const name of contents.entries.keys()) if (name !== DATABASE_ENTRY && !listed.has(name)) problems.push(`${name} is not in the manifest.`);
  if (m.blobs.count !== m.files.length || m.blobs.bytes !== m.files.reduce((n, f) => n + f.size, 0))
    problems.push("The manifest's blob totals do not match its files.");
  if (problems.length || !contents.entries.has(DATABASE_ENTRY)) return problems;

  const integrity = checkSnapshotIntegrity(dbFile);
  if (integrity) return [`The database fails SQLite's integrity check: ${integrity}`];
  const counts = snapshotCounts(dbFile);
  for (const [table, n] of Object.entries(m.counts))
    if (counts[table as keyof typeof counts] !== n) problems.push(`The database has ${counts[table as keyof typeof counts]} ${table}; the manifest says ${n}.`);
  const erased = new Set(m.erased_during_backup);
  const missing = snapshotBlobKeys(dbFile).filter((k) => !listed.has(`blobs/${k}`) && !erased.has(k));
  if (missing.length) problems.push(`${missing.length} blob(s) the database references are not in the archive (first: ${missing[0]}).`);
  return problems;
}
