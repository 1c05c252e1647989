/**
 * @module db/checkpointer
 * WAL checkpoints of the server's SQLite database, moved off the request thread. By default SQLite
 * checkpoints inside the commit that takes the WAL past 1,000 pages: that commit (some request's
 * answer or submit) then waits for the page copy and two fsyncs — 5–10 ms on this kind of machine,
 * a stall of every request in flight (bench/intake.ts, docs/performance.md "Intake, third pass").
 * `earshot serve` turns that off on its connection and asks a worker thread with its own
 * connection (db/checkpoint-worker.ts) for a PASSIVE checkpoint every `everyMs`; a checkpoint still
 * running when the next is due is not doubled. Durability is unchanged: a commit is in the WAL
 * before it is acknowledged, whoever copies it later; closing the last connection checkpoints the
 * rest as before. Other commands (short-lived) keep SQLite's automatic checkpoints.
 */
import type { Db } from "./client.ts";
import { sqliteHandleOf } from "./direct.ts";
import type { Logger } from "../logger.ts";

/** How often the worker checkpoints, in ms. */
export const CHECKPOINT_EVERY_MS = 250;
/** SQLite's default automatic checkpoint threshold, in WAL pages (restored at stop). */
const AUTO_CHECKPOINT_PAGES = 1000;

export interface Checkpointer {
  /** Stops the timer, lets a running checkpoint finish, closes the worker's connection and restores automatic checkpoints. */
  stop(): Promise<void>;
}

type Reply = { type: "done"; log: number; checkpointed: number; ms: number } | { type: "failed"; message: string } | { type: "closed" };

/**
 * Starts checkpointing `file` from a worker thread. On PostgreSQL (no handle) it does nothing.
 * @param db the server's database (SQLite: its connection stops checkpointing by itself)
 * @param file the SQLite database file `db` has open
 */
export function startCheckpointer(db: Db, file: string, opts: { log: Logger; everyMs?: number }): Checkpointer {
  const handle = sqliteHandleOf(db);
  if (!handle) return { stop: async () => {} };
  // This exact form is what `bun build --compile` resolves to the bundled worker entrypoint.
  const worker = new Worker(new URL("./checkpoint-worker.ts", import.meta.url));
  let running = false;
  let closed: (() => void) | null = null;
  let failures = 0;
  worker.onmessage = (event: MessageEvent<Reply>) => {
    const reply = event.data;
    if (reply.type === "closed") return closed?.();
    running = false;
    if (reply.type === "failed") {
      // A failed checkpoint leaves the pages in the WAL for the next one; say so once in a while.
      if (failures++ % 100 === 0) opts.log.warn("WAL checkpoint failed; retrying", { error: reply.message });
    } else failures = 0;
  };
  worker.postMessage({ type: "open", file });
  handle.exec("PRAGMA wal_autocheckpoint = 0");
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    worker.postMessage({ type: "checkpoint" });
  }, opts.everyMs ?? CHECKPOINT_EVERY_MS);
  timer.unref?.();
  return {
    async stop() {
      clearInterval(timer);
      await new Promise<void>((resolve) => {
        closed = resolve;
        worker.postMessage({ type: "close" });
      });
      worker.terminate();
      handle.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    },
  };
}
