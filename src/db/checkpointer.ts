/**
 * @module db/checkpointer
 * WAL checkpoints of the server's SQLite database, moved off the request thread. By default SQLite
 * checkpoints inside the commit that takes the WAL past 1,000 pages: that commit (some request's
 * answer or submit) then waits for the page copy and two fsyncs — 5–10 ms on this kind of machine,
 * a stall of every request in flight (bench/intake.ts; docs/decisions/hot-paths.md).
 * `earshot serve` watches the WAL file's size; once it holds `startAtFrames` frames (the server is
 * writing in earnest), it starts a worker thread with its own connection
 * (db/checkpoint-worker.ts), turns automatic checkpoints off on its own connection, and asks the
 * worker for a PASSIVE checkpoint every `everyMs`; a checkpoint still running when the next is due
 * is not doubled. An idle server never starts the worker (a thread costs ~7 MB of RSS). Durability
 * is unchanged: a commit is in the WAL before it is acknowledged, whoever copies it later; closing
 * the last connection checkpoints the rest as before. Other commands (short-lived) keep SQLite's
 * automatic checkpoints.
 *
 * The WAL's size is bounded (issue 22). SQLite rewinds the WAL to its start only when a write
 * transaction begins while every frame in it has been copied; under sustained writes the worker's
 * PASSIVE checkpoint never quite catches up (commits land while it copies), so the WAL grew without
 * end (1.4 GB in 40 s). Two things bound it: the server's connection keeps SQLite's automatic
 * checkpoint, at `LAG_FRAMES` instead of 1,000 — while the worker keeps up the WAL is rewound
 * long before that and it never fires; when it lags, the commit that passes the mark copies what is
 * left (most of it the worker has copied already) and the next transaction rewinds the WAL; and
 * once nothing was written for `IDLE_TRUNCATE_MS` the worker truncates the file to zero bytes
 * (`journal_size_limit`, db/client.ts, trims it at each rewind after a larger spike).
 */
import fs from "node:fs";
import type { Db } from "./client.ts";
import { sqliteHandleOf } from "./direct.ts";
import type { Logger } from "../logger.ts";

/** How often the WAL's size is looked at, then how often the worker checkpoints, in ms. */
export const CHECKPOINT_EVERY_MS = 250;
/** The WAL frames at which the worker starts: a quarter of SQLite's automatic threshold (1,000 pages). */
export const START_AT_FRAMES = 250;
/** SQLite's default automatic checkpoint threshold, in WAL pages (restored at stop or when the worker fails). */
const AUTO_CHECKPOINT_PAGES = 1000;
/**
 * While the worker runs, the server's own connection checkpoints in a commit only once the WAL
 * holds this many frames (16 MiB at 4 KiB pages): the worker lags and SQLite could not rewind it.
 */
export const LAG_FRAMES = 4096;
/** After this long without a write (the WAL fully copied, its frame count unchanged), the worker truncates it, in ms. */
export const IDLE_TRUNCATE_MS = 1000;
/** How long `stop()` waits for the worker to close its connection, in ms. */
const CLOSE_WAIT_MS = 2000;

export interface Checkpointer {
  /** Stops the timer, lets a running checkpoint finish (≤ 2 s), closes the worker and restores automatic checkpoints. */
  stop(): Promise<void>;
  /** Whether the worker runs and checkpoints (the WAL once passed the threshold, and the worker opened the file). */
  readonly started: boolean;
}

/** The last checkpoint the worker finished, for `/metrics` (null until one has). */
export type CheckpointOutcome = { atMs: number; walFrames: number; checkpointedFrames: number };
let lastOutcome: CheckpointOutcome | null = null;

/** The last WAL checkpoint this process's worker finished (frames in the WAL then, and copied), or null. */
export function lastCheckpoint(): CheckpointOutcome | null {
  return lastOutcome;
}

type Reply = { type: "opened" } | { type: "done"; log: number; checkpointed: number; ms: number } | { type: "failed"; message: string } | { type: "closed" };

/**
 * Checkpoints `file` from a worker thread once its WAL file has grown to `startAtFrames` frames.
 * If the worker cannot open the file or dies, SQLite's automatic checkpoints come back on and the
 * server goes on without it (one warning). On PostgreSQL (no SQLite handle behind `db`) it does
 * nothing.
 * @param db the server's database (SQLite: its connection stops checkpointing by itself once the worker runs)
 * @param file the SQLite database file `db` has open (its WAL is `file` + "-wal")
 */
export function startCheckpointer(db: Db, file: string, opts: { log: Logger; everyMs?: number; startAtFrames?: number }): Checkpointer {
  const found = sqliteHandleOf(db);
  if (!found) return { stop: async () => {}, started: false };
  const handle = found;
  const everyMs = opts.everyMs ?? CHECKPOINT_EVERY_MS;
  const pageSize = Number(handle.query<{ page_size: number }, []>("PRAGMA page_size").get()?.page_size ?? 4096);
  // A WAL file is a 32-byte header and frames of a 24-byte header and a page. Its size, read
  // without opening it (an open and close of any of the database's files would drop this
  // process's POSIX locks on it: sqlite.org/howtocorrupt.html §2.2), says how much was written
  // since it was last emptied: migrations and a clean stop empty it; checkpoints only rewind it.
  const startAtBytes = 32 + (opts.startAtFrames ?? START_AT_FRAMES) * (pageSize + 24);
  const walFile = `${file}-wal`;
  let worker: Worker | null = null;
  let checkpointing = false; // the worker opened the file; automatic checkpoints are off
  let running = false;
  let failed = false;
  let closed: (() => void) | null = null;
  let failures = 0;
  // The WAL's frame count at the last checkpoint, and since when it stood still fully copied.
  let lastLog = -1;
  let stillSince = 0;
  let truncateNext = false;

  /** Back to SQLite's own checkpoints, for good: the worker could not open the file or died. */
  const giveUp = (reason: string) => {
    if (failed) return;
    failed = true;
    checkpointing = false;
    handle.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    opts.log.warn("WAL checkpoint worker stopped; SQLite checkpoints inside commits again", { reason });
    const w = worker;
    worker = null;
    w?.terminate();
    closed?.();
  };

  function startWorker(): Worker {
    // This exact form is what `bun build --compile` resolves to the bundled worker entrypoint.
    const w = new Worker(new URL("./checkpoint-worker.ts", import.meta.url));
    w.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      if (reply.type === "closed") return closed?.();
      if (reply.type === "opened") {
        handle.exec(`PRAGMA wal_autocheckpoint = ${LAG_FRAMES}`);
        checkpointing = true;
        return;
      }
      running = false;
      if (reply.type === "failed") {
        if (!checkpointing) return giveUp(`could not open ${file}: ${reply.message}`);
        // A failed checkpoint leaves the pages in the WAL for the next one; say so once in a while.
        if (failures++ % 100 === 0) opts.log.warn("WAL checkpoint failed; retrying", { error: reply.message });
        return;
      }
      failures = 0;
      lastOutcome = { atMs: Date.now(), walFrames: reply.log, checkpointedFrames: reply.checkpointed };
      // Nothing written since the last checkpoint and everything copied: once that has lasted
      // IDLE_TRUNCATE_MS, the next checkpoint truncates the WAL (a TRUNCATE checkpoint waits for
      // writers, of which there are none; afterwards the log is 0 and this stays quiet).
      const now = performance.now();
      if (reply.log === 0 || reply.checkpointed < reply.log || reply.log !== lastLog) stillSince = now;
      lastLog = reply.log;
      truncateNext = now - stillSince >= IDLE_TRUNCATE_MS;
    };
    w.addEventListener("error", (event) => giveUp(`worker error: ${event.message}`));
    w.addEventListener("close", () => giveUp("worker exited"));
    w.postMessage({ type: "open", file });
    return w;
  }

  const timer = setInterval(() => {
    if (failed) return;
    if (!worker) {
      if ((fs.statSync(walFile, { throwIfNoEntry: false })?.size ?? 0) < startAtBytes) return;
      worker = startWorker();
    }
    if (!checkpointing || running) return;
    running = true;
    worker.postMessage({ type: "checkpoint", mode: truncateNext ? "TRUNCATE" : "PASSIVE" });
    // One TRUNCATE per quiet spell: the next one needs another IDLE_TRUNCATE_MS without writes.
    if (truncateNext) lastLog = -1;
    truncateNext = false;
  }, everyMs);
  timer.unref?.();
  return {
    get started() {
      return checkpointing;
    },
    async stop() {
      clearInterval(timer);
      const w = worker;
      if (!w || failed) return;
      failed = true; // what follows is the end, not a failure to report
      await Promise.race([
        new Promise<void>((resolve) => {
          closed = resolve;
          w.postMessage({ type: "close" });
        }),
        Bun.sleep(CLOSE_WAIT_MS),
      ]);
      w.terminate();
      worker = null;
      handle.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    },
  };
}
