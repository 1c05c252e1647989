/**
 * @module db/checkpointer
 * WAL checkpoints of the server's SQLite database, moved off the request thread. By default SQLite
 * checkpoints inside the commit that takes the WAL past 1,000 pages: that commit (some request's
 * answer or submit) then waits for the page copy and two fsyncs — 5–10 ms on this kind of machine,
 * a stall of every request in flight (bench/intake.ts; docs/decisions/hot-paths.md).
 * `earshot serve` watches how many WAL frames wait to be copied; once they pass `startAtFrames` (the
 * server is writing in earnest), it starts a worker thread with its own connection
 * (db/checkpoint-worker.ts), turns automatic checkpoints off on its own connection, and asks the
 * worker for a PASSIVE checkpoint every `everyMs`; a checkpoint still running when the next is due
 * is not doubled. An idle server never starts the worker (a thread costs ~7 MB of RSS). Durability
 * is unchanged: a commit is in the WAL before it is acknowledged, whoever copies it later; closing
 * the last connection checkpoints the rest as before. Other commands (short-lived) keep SQLite's
 * automatic checkpoints.
 */
import fs from "node:fs";
import os from "node:os";
import type { Db } from "./client.ts";
import { sqliteHandleOf } from "./direct.ts";
import type { Logger } from "../logger.ts";

/** How often the WAL's size is looked at, then how often the worker checkpoints, in ms. */
export const CHECKPOINT_EVERY_MS = 250;
/** The WAL frames not yet copied at which the worker starts: a quarter of SQLite's automatic threshold (1,000 pages). */
export const START_AT_FRAMES = 250;
/** SQLite's default automatic checkpoint threshold, in WAL pages (restored at stop). */
const AUTO_CHECKPOINT_PAGES = 1000;

export interface Checkpointer {
  /** Stops the timer, lets a running checkpoint finish, closes the worker's connection and restores automatic checkpoints. */
  stop(): Promise<void>;
  /** Whether the worker runs (the WAL once passed the threshold). */
  readonly started: boolean;
}

type Reply = { type: "done"; log: number; checkpointed: number; ms: number } | { type: "failed"; message: string } | { type: "closed" };

/**
 * Checkpoints `file` from a worker thread once its WAL holds `startAtFrames` frames not yet copied
 * into the file. On PostgreSQL (no
 * SQLite handle behind `db`) it does nothing.
 * @param db the server's database (SQLite: its connection stops checkpointing by itself once the worker runs)
 * @param file the SQLite database file `db` has open (its WAL is `file` + "-wal")
 */
export function startCheckpointer(db: Db, file: string, opts: { log: Logger; everyMs?: number; startAtFrames?: number }): Checkpointer {
  const handle = sqliteHandleOf(db);
  if (!handle) return { stop: async () => {}, started: false };
  const everyMs = opts.everyMs ?? CHECKPOINT_EVERY_MS;
  const startAtFrames = opts.startAtFrames ?? START_AT_FRAMES;
  let worker: Worker | null = null;
  let running = false;
  let closed: (() => void) | null = null;
  let failures = 0;

  const pending = pendingFrames(`${file}-shm`);

  function startWorker(): Worker {
    // This exact form is what `bun build --compile` resolves to the bundled worker entrypoint.
    const w = new Worker(new URL("./checkpoint-worker.ts", import.meta.url));
    w.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      if (reply.type === "closed") return closed?.();
      running = false;
      if (reply.type === "failed") {
        // A failed checkpoint leaves the pages in the WAL for the next one; say so once in a while.
        if (failures++ % 100 === 0) opts.log.warn("WAL checkpoint failed; retrying", { error: reply.message });
      } else failures = 0;
    };
    w.postMessage({ type: "open", file });
    handle!.exec("PRAGMA wal_autocheckpoint = 0");
    return w;
  }

  const timer = setInterval(() => {
    if (!worker) {
      if (pending() < startAtFrames) return;
      worker = startWorker();
    }
    if (running) return;
    running = true;
    worker.postMessage({ type: "checkpoint" });
  }, everyMs);
  timer.unref?.();
  return {
    get started() {
      return worker !== null;
    },
    async stop() {
      clearInterval(timer);
      const w = worker;
      if (!w) return;
      await new Promise<void>((resolve) => {
        closed = resolve;
        w.postMessage({ type: "close" });
      });
      w.terminate();
      handle.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    },
  };
}

/**
 * Frames in the WAL not yet copied into the database file, read from the wal-index header in the
 * `-shm` file (sqlite.org/walformat.html: `mxFrame`, the u32 at byte 16, minus `nBackfill`, the
 * u32 at byte 96; native byte order). A cheap read every tick; 0 while there is no such file.
 * @returns a function reading the current count
 */
function pendingFrames(shmFile: string): () => number {
  const header = Buffer.alloc(100);
  const native = (at: number) => (os.endianness() === "LE" ? header.readUInt32LE(at) : header.readUInt32BE(at));
  return () => {
    let fd: number | null = null;
    try {
      fd = fs.openSync(shmFile, "r");
      if (fs.readSync(fd, header, 0, 100, 0) < 100) return 0;
      return Math.max(0, native(16) - native(96));
    } catch {
      return 0;
    } finally {
      if (fd !== null) fs.closeSync(fd);
    }
  };
}
