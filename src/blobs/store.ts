/**
 * @module blobs/store
 * Recorded audio and uploaded files live behind this small interface (DESIGN §1, §11): files on
 * the local disk on an appliance (`createLocalBlobStore`), chunked `bytea` rows in the database
 * on PostgreSQL (`createPostgresBlobStore`, src/blobs/postgres.ts), so every node of a cluster
 * reads what another node stored. `createBlobStore` picks the one for a database.
 */
import fs from "node:fs/promises";
import { createWriteStream } from "node:fs";
import path from "node:path";
import type { Kysely } from "kysely";
import { engineOf } from "../db/engine.ts";
import { createPostgresBlobStore } from "./postgres.ts";
import { type ByteSource, chunksOf, KEY_PATTERN } from "./bytes.ts";
import { removeBlobFile } from "./hold.ts";

export { type ByteSource, chunksOf, KEY_PATTERN } from "./bytes.ts";

export interface BlobStore {
  /** Stores bytes under a new key (`<prefix>/<uuid>`) and returns the key. */
  put(prefix: string, bytes: Uint8Array): Promise<string>;
  /**
   * Stores bytes as they arrive, never holding more than one chunk (256 KiB on PostgreSQL).
   * @returns the new key and the size in bytes; nothing is kept when the source throws
   */
  putStream(prefix: string, source: ByteSource): Promise<{ key: string; size: number }>;
  /** Reads a whole blob into memory; null when the key does not exist. */
  get(key: string): Promise<Uint8Array | null>;
  /** The blob as a stream read piece by piece; null when the key does not exist. */
  stream(key: string): Promise<ReadableStream<Uint8Array> | null>;
  /** The first `n` bytes (fewer when the blob is shorter); null when the key does not exist. */
  head(key: string, n: number): Promise<Uint8Array | null>;
  /** Size in bytes, or null when the key does not exist. */
  size(key: string): Promise<number | null>;
  /** Deletes a blob; deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Absolute path of a blob on local disk, or null when not local (PostgreSQL). */
  localPath(key: string): string | null;
  /** Which store this is (`/healthz`, logs, `migrate-to-postgres`). */
  readonly kind: "local" | "postgres";
}

/**
 * The store for a database: the PostgreSQL blob store when `db` is PostgreSQL, else files under
 * `blobsDir` (`<data_dir>/blobs`).
 */
export function createBlobStore(db: Kysely<any>, blobsDir: string, opts: { sync?: boolean } = {}): BlobStore {
  return engineOf(db).blobsInDatabase ? createPostgresBlobStore(db) : createLocalBlobStore(blobsDir, opts);
}

/** Syncs a directory's entries (a new or renamed file in it) to disk. */
async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * A blob store on the local disk under `root` (usually `<data_dir>/blobs`). Writes go to a
 * temporary file first and are renamed into place, so a crash never leaves half a blob.
 * With `opts.sync` (the server under `EARSHOT_SQLITE_SYNCHRONOUS=full`) a put returns only once
 * the file's bytes and its name are on disk, so the commit that then refers to it (synced too)
 * never names a blob a power cut could take back (docs/decisions/sqlite-durability.md).
 * @throws Error for keys that are not of the form `<prefix>/<uuid>` (no path traversal)
 */
export function createLocalBlobStore(root: string, opts: { sync?: boolean } = {}): BlobStore {
  const sync = opts.sync ?? false;
  /** Creates the blob's folder; with `sync`, makes a new folder's entry durable in its parent. */
  const folderFor = async (file: string) => {
    const dir = path.dirname(file);
    const created = await fs.mkdir(dir, { recursive: true });
    if (sync && created) for (let d = dir; d !== path.dirname(created); d = path.dirname(d)) await syncDir(path.dirname(d));
  };
  /** Renames the finished temporary file into place; with `sync`, its bytes first and then the name. */
  const publish = async (tmp: string, file: string) => {
    if (sync) {
      const handle = await fs.open(tmp, "r+");
      try {
        await handle.datasync();
      } finally {
        await handle.close();
      }
    }
    await fs.rename(tmp, file);
    if (sync) await syncDir(path.dirname(file));
  };
  const resolve = (key: string): string => {
    if (!KEY_PATTERN.test(key)) throw new Error(`Invalid blob key: ${key}`);
    return path.join(root, key);
  };
  const exists = async (file: string) => (await fs.stat(file).catch(() => null))?.isFile() ?? false;
  return {
    kind: "local",
    async put(prefix, bytes) {
      const key = `${prefix}/${crypto.randomUUID()}`;
      const file = resolve(key);
      await folderFor(file);
      const tmp = `${file}.tmp`;
      await fs.writeFile(tmp, bytes);
      await publish(tmp, file);
      return key;
    },
    async putStream(prefix, source) {
      const key = `${prefix}/${crypto.randomUUID()}`;
      const file = resolve(key);
      await folderFor(file);
      const tmp = `${file}.tmp`;
      const out = createWriteStream(tmp);
      let size = 0;
      try {
        for await (const chunk of chunksOf(source)) {
          size += chunk.byteLength;
          if (!out.write(chunk)) await new Promise((r) => out.once("drain", r));
        }
        await new Promise<void>((res, rej) => out.end((err?: Error | null) => (err ? rej(err) : res())));
      } catch (err) {
        out.destroy();
        await fs.rm(tmp, { force: true });
        throw err;
      }
      await publish(tmp, file);
      return { key, size };
    },
    async get(key) {
      try {
        return new Uint8Array(await fs.readFile(resolve(key)));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
    async stream(key) {
      const file = resolve(key);
      return (await exists(file)) ? Bun.file(file).stream() : null;
    },
    async head(key, n) {
      const file = resolve(key);
      return (await exists(file)) ? new Uint8Array(await Bun.file(file).slice(0, n).arrayBuffer()) : null;
    },
    async size(key) {
      try {
        return (await fs.stat(resolve(key))).size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
    async delete(key) {
      // Held, not removed, while `earshot backup` copies the blobs of its snapshot (blobs/hold.ts).
      await removeBlobFile(root, key, resolve(key));
    },
    localPath(key) {
      return resolve(key);
    },
  };
}
