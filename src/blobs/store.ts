/**
 * @module blobs/store
 * Recorded audio and uploaded files live outside the database behind this small interface, so
 * an S3-compatible store can replace the local disk later (DESIGN §1).
 */
import fs from "node:fs/promises";
import path from "node:path";

export interface BlobStore {
  /** Stores bytes under a new key (`<prefix>/<uuid>`) and returns the key. */
  put(prefix: string, bytes: Uint8Array): Promise<string>;
  /** Reads a blob; null when the key does not exist. */
  get(key: string): Promise<Uint8Array | null>;
  /** Size in bytes, or null when the key does not exist. */
  size(key: string): Promise<number | null>;
  /** Deletes a blob; deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Absolute path of a blob on local disk (for streaming), or null when not local. */
  localPath(key: string): string | null;
}

const KEY_PATTERN = /^[a-z0-9-]+\/[0-9a-f-]{36}$/;

/**
 * A blob store on the local disk under `root` (usually `<data_dir>/blobs`). Writes go to a
 * temporary file first and are renamed into place, so a crash never leaves half a blob.
 * @throws Error for keys that are not of the form `<prefix>/<uuid>` (no path traversal)
 */
export function createLocalBlobStore(root: string): BlobStore {
  const resolve = (key: string): string => {
    if (!KEY_PATTERN.test(key)) throw new Error(`Invalid blob key: ${key}`);
    return path.join(root, key);
  };
  return {
    async put(prefix, bytes) {
      const key = `${prefix}/${crypto.randomUUID()}`;
      const file = resolve(key);
      await fs.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.tmp`;
      await fs.writeFile(tmp, bytes);
      await fs.rename(tmp, file);
      return key;
    },
    async get(key) {
      try {
        return new Uint8Array(await fs.readFile(resolve(key)));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
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
      await fs.rm(resolve(key), { force: true });
    },
    localPath(key) {
      return resolve(key);
    },
  };
}
