/**
 * @module auth/usage
 * Coalesced usage accounting of API keys (DESIGN §5): a request records its key's `last_used_at`
 * and one API call of its workspace's day in memory; a flush writes everything recorded since
 * the last one in a single transaction — at most {@link FLUSH_INTERVAL_MS} after the first
 * unflushed record, and at shutdown (`stop()`). No request waits for a usage write; a crash may
 * lose the counts of the last interval. Readers of `last_used_at` and `api_calls_today` add what
 * is still in memory, so a process's own answers are exact.
 *
 * Several nodes on one PostgreSQL database (DESIGN §11) each flush their own counts: the daily
 * counter is an additive upsert (`calls = calls + excluded.calls`) and `last_used_at` only moves
 * forward, so the flushes of any number of nodes add up in any order. There the flush runs READ
 * COMMITTED without the global write lock (it is safe by construction), rows in key order so two
 * nodes' flushes cannot deadlock.
 */
import type { Kysely } from "kysely";
import { engineOf } from "../db/engine.ts";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import { addApiCalls, touchToken } from "./repository.ts";

/** Longest time a recorded use stays in memory only, in ms (DESIGN §5: at least once a second). */
export const FLUSH_INTERVAL_MS = 500;
/** Consecutive failed flushes after which the pending counts are dropped (and logged). */
const MAX_FAILED_FLUSHES = 5;

export interface UsageRecorder {
  /**
   * Records one API call by a key (no I/O).
   * @param at the request's time, an API timestamp (`YYYY-MM-DDTHH:MM:SS.ffffffZ`); its first 10
   *   characters are the UTC day of the counter
   */
  record(tokenUuid: string, workspaceUuid: string, at: string): void;
  /** The key's latest use not yet in the database (recorded or being written), else `stored`. */
  lastUsedAt(tokenUuid: string, stored: string | null): string | null;
  /** API calls of the workspace on `day` (`YYYY-MM-DD`) not yet in the database. */
  pendingCalls(workspaceUuid: string, day: string): number;
  /** Writes what is pending now, in one transaction; resolves when it committed (or failed: kept for the next flush). */
  flush(): Promise<void>;
  /** Final flush; later records are written by explicit `flush()` calls only. */
  stop(): Promise<void>;
}

type Pending = { lastUsed: Map<string, string>; calls: Map<string, { workspaceUuid: string; day: string; n: number }> };

const empty = (): Pending => ({ lastUsed: new Map(), calls: new Map() });

/**
 * Builds the recorder over a database.
 * @param opts.flushIntervalMs delay between the first unflushed record and its flush (default {@link FLUSH_INTERVAL_MS})
 * @param opts.log where failed flushes are reported (warn), if anywhere
 */
export function createUsageRecorder(db: Kysely<Database>, opts: { flushIntervalMs?: number; log?: Logger } = {}): UsageRecorder {
  const interval = opts.flushIntervalMs ?? FLUSH_INTERVAL_MS;
  let pending = empty();
  // What the running flush is writing: still counted by readers until it commits.
  let writing: Pending | null = null;
  let running: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let failures = 0;
  let stopped = false;

  function arm() {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, interval);
    // Never keeps a process alive on its own; `stop()` writes the rest at a graceful shutdown.
    timer.unref?.();
  }

  function merge(into: Pending, from: Pending) {
    for (const [k, at] of from.lastUsed) if ((into.lastUsed.get(k) ?? "") < at) into.lastUsed.set(k, at);
    for (const [k, c] of from.calls) {
      const have = into.calls.get(k);
      if (have) have.n += c.n;
      else into.calls.set(k, { ...c });
    }
  }

  async function writeOnce(): Promise<void> {
    if (pending.lastUsed.size === 0 && pending.calls.size === 0) return;
    const batch = pending;
    pending = empty();
    writing = batch;
    try {
      // Counts may lose their last moments in a database crash anyway (module comment), so the
      // commit need not wait for the WAL flush.
      await engineOf(db).lossyTransaction(db, async (trx) => {
        for (const [uuid, at] of [...batch.lastUsed].sort(([a], [b]) => (a < b ? -1 : 1))) await touchToken(trx, uuid, at);
        for (const [, c] of [...batch.calls].sort(([a], [b]) => (a < b ? -1 : 1))) await addApiCalls(trx, c.workspaceUuid, c.day, c.n);
      });
      failures = 0;
    } catch (err) {
      failures++;
      if (failures < MAX_FAILED_FLUSHES) {
        merge(pending, batch);
        opts.log?.warn("usage accounting: flush failed; retrying", { error: String(err) });
      } else {
        failures = 0;
        opts.log?.warn("usage accounting: flush failed repeatedly; dropped the pending counts", { error: String(err) });
      }
    } finally {
      writing = null;
    }
    if (pending.lastUsed.size || pending.calls.size) arm();
  }

  function flush(): Promise<void> {
    // One flush at a time; a flush asked for while one runs writes after it.
    const next = (running ?? Promise.resolve()).then(writeOnce);
    const settled = next.finally(() => {
      if (running === settled) running = null;
    });
    running = settled;
    return settled;
  }

  return {
    record(tokenUuid, workspaceUuid, at) {
      pending.lastUsed.set(tokenUuid, at);
      const day = at.slice(0, 10);
      const key = `${workspaceUuid} ${day}`;
      const c = pending.calls.get(key);
      if (c) c.n++;
      else pending.calls.set(key, { workspaceUuid, day, n: 1 });
      arm();
    },
    lastUsedAt(tokenUuid, stored) {
      const at = pending.lastUsed.get(tokenUuid) ?? writing?.lastUsed.get(tokenUuid);
      return at !== undefined && (stored === null || at > stored) ? at : stored;
    },
    pendingCalls(workspaceUuid, day) {
      const key = `${workspaceUuid} ${day}`;
      return (pending.calls.get(key)?.n ?? 0) + (writing?.calls.get(key)?.n ?? 0);
    },
    flush,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await flush();
    },
  };
}
