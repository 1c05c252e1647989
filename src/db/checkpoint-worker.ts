/**
 * @module db/checkpoint-worker
 * The worker thread of db/checkpointer.ts: its own connection to the SQLite file, running a
 * WAL checkpoint when asked. A checkpoint copies the WAL's committed pages into the
 * database file and syncs them; here that waiting happens off the thread that serves requests.
 * PASSIVE (the usual) never blocks readers or writers on other connections; TRUNCATE (asked for
 * only when nothing has been written for a while) waits for writers and empties the WAL file.
 *
 * Messages in: `{ type: "open", file }`, `{ type: "checkpoint", mode: "PASSIVE" | "TRUNCATE" }`, `{ type: "close" }`.
 * Messages out: `{ type: "opened" }` or `{ type: "failed", message }` for the open; per
 * checkpoint `{ type: "done", log, checkpointed, ms }` (WAL frames in the log, frames copied,
 * duration) or `{ type: "failed", message }`; `{ type: "closed" }`.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

let db: Database | null = null;

type Message = { type: "open"; file: string } | { type: "checkpoint"; mode: "PASSIVE" | "TRUNCATE" } | { type: "close" };

self.onmessage = (event: MessageEvent<Message>) => {
  const message = event.data;
  try {
    if (message.type === "open") {
      db = new Database(message.file);
      db.exec("PRAGMA busy_timeout = 1000");
      self.postMessage({ type: "opened" });
    } else if (message.type === "checkpoint") {
      if (!db) throw new Error("the checkpoint connection is not open");
      const started = performance.now();
      const mode = message.mode === "TRUNCATE" ? "TRUNCATE" : "PASSIVE";
      const row = db.query<{ busy: number; log: number; checkpointed: number }, []>(`PRAGMA wal_checkpoint(${mode})`).get();
      self.postMessage({ type: "done", log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0, ms: performance.now() - started });
    } else if (message.type === "close") {
      db?.close();
      db = null;
      self.postMessage({ type: "closed" });
    }
  } catch (err) {
    self.postMessage({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  }
};
