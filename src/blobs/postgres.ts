/**
 * @module blobs/postgres
 * The blob store of a PostgreSQL cluster (DESIGN §11; migration 2026-11-28T0100-postgres-blobs):
 * one `blobs` row per blob and its bytes in `blob_chunks` rows of {@link CHUNK_BYTES}, written and
 * read one chunk at a time, so a 64 MiB recording never sits in memory whole (except through
 * `get`, which callers use for what they decode anyway). Every node sees every blob.
 *
 * Writes are not one transaction: a plain transaction takes the cluster-wide write lock
 * (docs/decisions/postgres.md) and a long upload must not hold it. The `blobs` row is inserted
 * with `complete = 0`, the chunks follow, and the row is marked complete with its size last, the
 * way the disk store renames a `.tmp` file into place; readers only see complete blobs. A crash
 * mid-write leaves an incomplete row, which the intake housekeeping removes after an hour
 * (src/modules/intake/purge.ts, with unreferenced blobs: {@link blobsBefore}).
 */
import type { Kysely } from "kysely";
import { nowIso } from "../clock.ts";
import type { BlobStore } from "./store.ts";
import { type ByteSource, chunksOf, KEY_PATTERN } from "./bytes.ts";

/** Bytes per `blob_chunks` row (256 KiB). */
export const CHUNK_BYTES = 256 * 1024;

/** The two tables of the PostgreSQL blob store (not in `Database`: they exist only on PostgreSQL). */
export interface BlobTables {
  blobs: { key: string; size: number; chunks: number; complete: number; date_created: string };
  blob_chunks: { key: string; seq: number; data: Uint8Array };
}

function checkKey(key: string): string {
  if (!KEY_PATTERN.test(key)) throw new Error(`Invalid blob key: ${key}`);
  return key;
}

/**
 * A blob store in the PostgreSQL database `db`.
 * @throws Error for keys that are not of the form `<prefix>/<uuid>`
 */
export function createPostgresBlobStore(database: Kysely<any>): BlobStore {
  const db = database as Kysely<BlobTables>;
  const meta = async (key: string) => {
    const row = await db.selectFrom("blobs").select(["size", "chunks"]).where("key", "=", checkKey(key)).where("complete", "=", 1).executeTakeFirst();
    return row ? { size: Number(row.size), chunks: Number(row.chunks) } : null;
  };
  const chunk = async (key: string, seq: number): Promise<Uint8Array> => {
    const row = await db.selectFrom("blob_chunks").select("data").where("key", "=", key).where("seq", "=", seq).executeTakeFirst();
    if (!row) throw new Error(`Blob ${key} lacks chunk ${seq}`);
    return row.data;
  };
  const store: BlobStore = {
    kind: "postgres",
    async put(prefix, bytes) {
      async function* pieces() {
        for (let at = 0; at < bytes.byteLength; at += CHUNK_BYTES) yield bytes.subarray(at, at + CHUNK_BYTES);
      }
      return (await store.putStream(prefix, pieces())).key;
    },
    async putStream(prefix, source) {
      const key = checkKey(`${prefix}/${crypto.randomUUID()}`);
      return { key, size: await writeBlob(db, key, source) };
    },
    async get(key) {
      const m = await meta(key);
      if (!m) return null;
      const out = new Uint8Array(m.size);
      let at = 0;
      for (let seq = 0; seq < m.chunks; seq++) {
        const data = await chunk(key, seq);
        out.set(data, at);
        at += data.byteLength;
      }
      return out;
    },
    async stream(key) {
      const m = await meta(key);
      if (!m) return null;
      let seq = 0;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (seq >= m.chunks) return controller.close();
          controller.enqueue(await chunk(key, seq++));
        },
      });
    },
    async head(key, n) {
      const m = await meta(key);
      if (!m) return null;
      return m.chunks ? (await chunk(key, 0)).slice(0, n) : new Uint8Array(0);
    },
    async size(key) {
      return (await meta(key))?.size ?? null;
    },
    async delete(key) {
      // The chunks go with their blob (on delete cascade).
      await db.deleteFrom("blobs").where("key", "=", checkKey(key)).execute();
    },
    localPath() {
      return null;
    },
  };
  return store;
}

/**
 * Writes a blob under `key` chunk by chunk (module comment): an incomplete row first, the chunks,
 * then the row marked complete with its size. A blob already under `key` is replaced.
 * @returns the size in bytes
 * @throws whatever reading `source` or the database throws; nothing is kept then
 */
export async function writeBlob(database: Kysely<any>, key: string, source: ByteSource): Promise<number> {
  const db = database as Kysely<BlobTables>;
  checkKey(key);
  await db.deleteFrom("blobs").where("key", "=", key).execute();
  await db.insertInto("blobs").values({ key, size: 0, chunks: 0, complete: 0, date_created: nowIso() }).execute();
  // One chunk buffer, refilled: at most CHUNK_BYTES (plus the piece being copied) in memory.
  const buffer = new Uint8Array(CHUNK_BYTES);
  let filled = 0;
  let seq = 0;
  let size = 0;
  const flush = async () => {
    if (!filled) return;
    await db
      .insertInto("blob_chunks")
      .values({ key, seq: seq++, data: Buffer.from(buffer.buffer, 0, filled) })
      .execute();
    filled = 0;
  };
  try {
    for await (const piece of chunksOf(source)) {
      size += piece.byteLength;
      for (let at = 0; at < piece.byteLength; ) {
        const n = Math.min(CHUNK_BYTES - filled, piece.byteLength - at);
        buffer.set(piece.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === CHUNK_BYTES) await flush();
      }
    }
    await flush();
    await db.updateTable("blobs").set({ size, chunks: seq, complete: 1 }).where("key", "=", key).execute();
  } catch (err) {
    await db
      .deleteFrom("blobs")
      .where("key", "=", key)
      .execute()
      .catch(() => {});
    throw err;
  }
  return size;
}

/** Size of a complete blob under `key` in the database, or null (missing or incomplete). */
export async function storedBlobSize(database: Kysely<any>, key: string): Promise<number | null> {
  const row = await (database as Kysely<BlobTables>)
    .selectFrom("blobs")
    .select("size")
    .where("key", "=", checkKey(key))
    .where("complete", "=", 1)
    .executeTakeFirst();
  return row ? Number(row.size) : null;
}

/**
 * Keys of complete (`complete = true`) or incomplete blobs begun before `beforeIso`, in key order
 * after `afterKey`, at most `limit` (for the housekeeping's pages).
 */
export async function blobsBefore(database: Kysely<any>, complete: boolean, beforeIso: string, afterKey: string, limit: number): Promise<string[]> {
  const rows = await (database as Kysely<BlobTables>)
    .selectFrom("blobs")
    .select("key")
    .where("complete", "=", complete ? 1 : 0)
    .where("date_created", "<", beforeIso)
    .where("key", ">", afterKey)
    .orderBy("key")
    .limit(limit)
    .execute();
  return rows.map((r) => r.key);
}
