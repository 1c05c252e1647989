/**
 * The PostgreSQL blob store against a real PostgreSQL (EARSHOT_TEST_DATABASE_URL; skipped on the
 * SQLite run): a 64 MiB blob goes in and out in chunks with bounded memory, and deleting a blob
 * deletes its chunks.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { up as createBlobTables } from "../db/migrations/2026-11-28T0100-postgres-blobs.ts";
import { blobsBefore, CHUNK_BYTES, createPostgresBlobStore } from "./postgres.ts";
import { chunksOf } from "./store.ts";

const ADMIN_URL = process.env.EARSHOT_TEST_DATABASE_URL ?? "";
const onPostgres = /^postgres(ql)?:\/\//.test(ADMIN_URL);
const MiB = 1024 * 1024;

let db: Kysely<any>;
let admin: pg.Client;
const dbName = `hpgops_blobs_${process.pid}_${Date.now()}`;

beforeAll(async () => {
  if (!onPostgres) return;
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  pool.on("error", () => {}); // an idle connection the server ends is replaced at the next query
  db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  await createBlobTables(db);
});

afterAll(async () => {
  if (!onPostgres) return;
  await db.destroy();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
});

/** `total` bytes of a fixed pseudo-random pattern in 64 KiB pieces, made as they are read. */
async function* pattern(total: number, hash: ReturnType<typeof createHash>, onPiece: () => void): AsyncIterable<Uint8Array> {
  let state = 12345;
  for (let sent = 0; sent < total; ) {
    const piece = new Uint8Array(Math.min(64 * 1024, total - sent));
    for (let i = 0; i < piece.length; i++) {
      state = (state * 1103515245 + 12345) >>> 0;
      piece[i] = state >>> 24;
    }
    hash.update(piece);
    sent += piece.length;
    onPiece();
    yield piece;
  }
}

/** Tracks the highest RSS over a baseline, collecting garbage every `gcEvery` samples so it shows what is live, not garbage. */
function rssMeter(gcEvery: number) {
  Bun.gc(true);
  const base = process.memoryUsage().rss;
  let peak = 0;
  let n = 0;
  return {
    sample() {
      if (++n % gcEvery === 0) Bun.gc(true);
      peak = Math.max(peak, process.memoryUsage().rss - base);
    },
    get peakMiB() {
      return peak / MiB;
    },
  };
}

test.skipIf(!onPostgres)(
  "a 64 MiB blob goes into PostgreSQL and back out in 256 KiB chunks with bounded memory (PostgreSQL only: the blob store in the database)",
  async () => {
    const store = createPostgresBlobStore(db);
    const inHash = createHash("sha256");
    const writing = rssMeter(64); // a 64 KiB piece per sample: every 4 MiB
    const { key, size } = await store.putStream(
      "audio",
      pattern(64 * MiB, inHash, () => writing.sample()),
    );
    expect(size).toBe(64 * MiB);
    const { rows } = await sql<{
      n: number;
      biggest: number;
    }>`select count(*)::int as n, max(length(data))::int as biggest from blob_chunks where key = ${key}`.execute(db);
    expect(rows[0]).toEqual({ n: (64 * MiB) / CHUNK_BYTES, biggest: CHUNK_BYTES });
    expect(await store.size(key)).toBe(64 * MiB);

    const reading = rssMeter(8); // a 256 KiB chunk per sample: every 2 MiB
    const outHash = createHash("sha256");
    let read = 0;
    for await (const piece of chunksOf((await store.stream(key))!)) {
      outHash.update(piece);
      read += piece.byteLength;
      reading.sample();
    }
    expect(read).toBe(64 * MiB);
    expect(outHash.digest("hex")).toBe(inHash.digest("hex"));
    // Holding the blob whole would add at least 64 MiB; chunk by chunk stays far below.
    expect(writing.peakMiB).toBeLessThan(40);
    expect(reading.peakMiB).toBeLessThan(40);
    console.log(`64 MiB blob: peak RSS +${writing.peakMiB.toFixed(1)} MiB writing, +${reading.peakMiB.toFixed(1)} MiB reading`);
  },
  120_000,
);

test.skipIf(!onPostgres)("put, get, head and size agree; deleting a blob deletes its chunks (PostgreSQL only: the blob store in the database)", async () => {
  const store = createPostgresBlobStore(db);
  const bytes = new Uint8Array(CHUNK_BYTES * 2 + 17).map((_, i) => i % 251);
  const key = await store.put("files", bytes);
  expect(await store.get(key)).toEqual(bytes);
  expect(await store.head(key, 4)).toEqual(bytes.slice(0, 4));
  expect(await store.size(key)).toBe(bytes.length);
  const empty = await store.put("files", new Uint8Array(0));
  expect(await store.get(empty)).toEqual(new Uint8Array(0));

  await store.delete(key);
  expect(await store.get(key)).toBeNull();
  expect(await store.stream(key)).toBeNull();
  expect(await store.size(key)).toBeNull();
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from blob_chunks where key = ${key}`.execute(db);
  expect(rows[0]!.n).toBe(0);
  await store.delete(key); // deleting a missing blob is not an error
});

test.skipIf(!onPostgres)(
  "a write that fails midway leaves nothing; an incomplete blob is invisible (PostgreSQL only: the blob store in the database)",
  async () => {
    const store = createPostgresBlobStore(db);
    async function* broken() {
      yield new Uint8Array(CHUNK_BYTES + 5);
      throw new Error("client went away");
    }
    const before = await sql<{ n: number }>`select count(*)::int as n from blobs`.execute(db);
    await expect(store.putStream("audio", broken())).rejects.toThrow("client went away");
    const after = await sql<{ n: number }>`select count(*)::int as n from blobs`.execute(db);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);

    // What a crashed writer leaves: a row still marked incomplete.
    const key = `audio/${crypto.randomUUID()}`;
    await db.insertInto("blobs").values({ key, size: 0, chunks: 0, complete: 0, date_created: "2026-01-01T00:00:00.000000Z" }).execute();
    expect(await store.get(key)).toBeNull();
    expect(await blobsBefore(db, false, "2026-01-02T00:00:00.000000Z", "", 10)).toEqual([key]);
  },
);
