/**
 * @module intake/purge
 * Housekeeping of the anonymous intake (DESIGN §9; docs/operations.md "Housekeeping"):
 * - abandoned sessions: `started` responses whose response and answers were last touched more than
 *   `EARSHOT_SESSION_RETENTION_DAYS` ago are erased with their answers, jobs, events and blobs;
 * - orphaned blobs: files in the blob directory that no answer references (an upload whose
 *   transaction failed, a crash between writing a blob and recording it), once older than an hour;
 * - `.tmp` files a crash mid-upload leaves, once older than an hour (at start-up: any from before
 *   the process started).
 * Runs at start-up (in this process) and every hour, as a periodic job (src/periodic.ts).
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { engineOf } from "../../db/engine.ts";
import type { BlobStore } from "../../blobs/store.ts";
import type { Logger } from "../../logger.ts";
import type { PeriodicTask } from "../../jobs/scheduler.ts";
import { formatMicros } from "../../clock.ts";
import { eraseResponseEvents } from "../../outbox/repository.ts";
import * as responsesRepo from "../responses/repository.ts";
import { blobsOfAnswer } from "../responses/service.ts";
import { blobsBefore } from "../../blobs/postgres.ts";
import { releaseStaleHold } from "../../blobs/hold.ts";

/** Orphaned blobs and `.tmp` files younger than this are left alone (an upload may be in flight). */
export const PURGE_GRACE_MS = 60 * 60 * 1000;
const BATCH = 100;
const BLOB_NAME = /^[0-9a-f-]{36}$/;

export type PurgeDeps = { db: Kysely<Database>; blobs: BlobStore; log: Logger; blobsDir: string };
export type PurgeOptions = {
  retentionDays: number;
  /** Defaults to the current time. */
  nowMs?: number;
  /** Orphaned blobs last modified before this are deleted; default `now − 1 h`. */
  orphansBeforeMs?: number;
  /** `.tmp` files last modified before this are deleted; default `now − 1 h`. */
  tmpBeforeMs?: number;
};
export type PurgeReport = { sessions: number; blobs: number; orphans: number; tmp: number };

/** Erases abandoned `started` sessions, in batches. @returns sessions and blobs removed */
async function purgeAbandonedSessions(deps: PurgeDeps, cutoff: string): Promise<{ sessions: number; blobs: number }> {
  let sessions = 0;
  let blobs = 0;
  for (;;) {
    const stale = await deps.db
      .selectFrom("responses as r")
      .select("r.uuid")
      .where("r.status", "=", "started")
      .where("r.date_updated", "<", cutoff)
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom("answers as a").select("a.uuid").whereRef("a.response_uuid", "=", "r.uuid").where("a.date_updated", ">=", cutoff))),
      )
      .limit(BATCH)
      .execute();
    if (!stale.length) return { sessions, blobs };
    for (const { uuid } of stale) {
      const keys = await deps.db.transaction().execute(async (trx) => {
        const row = await responsesRepo.findResponseByUuid(trx, uuid);
        if (!row || row.status !== "started") return [];
        const answers = await responsesRepo.answersOf(trx, [uuid]);
        await responsesRepo.deleteJobsOfAnswers(
          trx,
          answers.map((a) => a.uuid),
        );
        await responsesRepo.deleteAnswersOf(trx, uuid);
        await responsesRepo.deleteResponse(trx, uuid);
        await eraseResponseEvents(trx, uuid);
        return answers.flatMap(blobsOfAnswer);
      });
      for (const k of keys) await deps.blobs.delete(k);
      sessions++;
      blobs += keys.length;
    }
  }
}

/** Every blob key an answer references. */
async function referencedKeys(db: Kysely<Database>): Promise<Set<string>> {
  const rows = await db
    .selectFrom("answers")
    .selectAll()
    .where((eb) => eb.or([eb("audio_blob", "is not", null), eb("file_blob", "is not", null), eb("follow_ups", "!=", "[]")]))
    .execute();
  return new Set(rows.flatMap(blobsOfAnswer));
}

/** True when some answer references `key` now. */
async function isReferenced(db: Kysely<Database>, key: string): Promise<boolean> {
  const row = await db
    .selectFrom("answers")
    .select("uuid")
    .where((eb) => eb.or([eb("audio_blob", "=", key), eb("file_blob", "=", key), eb("follow_ups", "like", `%${key}%`)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes unreferenced blobs and stale `.tmp` files under the blob directory. */
async function purgeBlobFiles(deps: PurgeDeps, orphansBeforeMs: number, tmpBeforeMs: number): Promise<{ orphans: number; tmp: number }> {
  let orphans = 0;
  let tmp = 0;
  // While `earshot backup` runs, blobs stay (it copies those its snapshot references); after a
  // backup died, what it held is removed here (blobs/hold.ts).
  if (!(await releaseStaleHold(deps.blobsDir))) return { orphans, tmp };
  let prefixes: string[];
  try {
    prefixes = await fs.readdir(deps.blobsDir);
  } catch {
    return { orphans, tmp }; // no blob directory yet
  }
  const referenced = await referencedKeys(deps.db);
  for (const prefix of prefixes) {
    const dir = path.join(deps.blobsDir, prefix);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      continue; // not a directory
    }
    for (const name of names) {
      const file = path.join(dir, name);
      const isTmp = name.endsWith(".tmp");
      if (!isTmp && (!BLOB_NAME.test(name) || referenced.has(`${prefix}/${name}`))) continue;
      const stat = await fs.stat(file).catch(() => null);
      if (!stat?.isFile() || stat.mtimeMs >= (isTmp ? tmpBeforeMs : orphansBeforeMs)) continue;
      // Re-check an orphan just before deleting it: it may have been referenced meanwhile.
      if (!isTmp && (await isReferenced(deps.db, `${prefix}/${name}`))) continue;
      await fs.rm(file, { force: true });
      if (isTmp) tmp++;
      else orphans++;
    }
  }
  return { orphans, tmp };
}

/**
 * The same for blobs in PostgreSQL (src/blobs/postgres.ts): unreferenced blobs and blobs a crashed
 * writer left incomplete (counted as `tmp`), once older than the grace period.
 */
async function purgeDatabaseBlobs(deps: PurgeDeps, orphansBeforeMs: number, tmpBeforeMs: number): Promise<{ orphans: number; tmp: number }> {
  const iso = (ms: number) => formatMicros(BigInt(Math.floor(ms)) * 1000n);
  const referenced = await referencedKeys(deps.db);
  const sweep = async (complete: boolean, beforeMs: number): Promise<number> => {
    let removed = 0;
    let after = "";
    for (;;) {
      const keys = await blobsBefore(deps.db, complete, iso(beforeMs), after, BATCH);
      if (!keys.length) return removed;
      after = keys[keys.length - 1]!;
      for (const key of keys) {
        // Re-check an orphan just before deleting it: it may have been referenced meanwhile.
        if (complete && (referenced.has(key) || (await isReferenced(deps.db, key)))) continue;
        await deps.blobs.delete(key);
        removed++;
      }
    }
  };
  return { orphans: await sweep(true, orphansBeforeMs), tmp: await sweep(false, tmpBeforeMs) };
}

/**
 * One purge pass.
 * @returns how many sessions, their blobs, orphaned blobs and `.tmp` files were removed
 */
export async function purgeIntake(deps: PurgeDeps, opts: PurgeOptions): Promise<PurgeReport> {
  const now = opts.nowMs ?? Date.now();
  const cutoff = formatMicros(BigInt(Math.floor(now - opts.retentionDays * 86_400_000)) * 1000n);
  const s = await purgeAbandonedSessions(deps, cutoff);
  const purgeBlobs = engineOf(deps.db).blobsInDatabase ? purgeDatabaseBlobs : purgeBlobFiles;
  const f = await purgeBlobs(deps, opts.orphansBeforeMs ?? now - PURGE_GRACE_MS, opts.tmpBeforeMs ?? now - PURGE_GRACE_MS);
  return { ...s, ...f };
}

const MINUTE_MS = 60_000;

/** One logged purge. */
async function purgeAndLog(deps: PurgeDeps, retentionDays: number, opts: Omit<PurgeOptions, "retentionDays">): Promise<void> {
  const r = await purgeIntake(deps, { retentionDays, ...opts });
  if (r.sessions || r.orphans || r.tmp) deps.log.info("purged abandoned intake sessions and stray blobs", { ...r, retention_days: retentionDays });
}

/**
 * How far a file's mtime may lag the clock it was taken from: Linux stamps files from its coarse
 * clock (one tick, 1–10 ms, behind), so an upload this process began just after it started can
 * carry an mtime a little before `startedAtMs`. A crash-left file younger than this waits for the
 * hourly pass.
 */
const MTIME_SLACK_MS = 2000;

/**
 * The purge at start-up, in this process: `.tmp` files older than this process (`startedAtMs`,
 * taken before it listened; a crash of this appliance left them) are deleted at once. Not "older
 * than now": the purge runs a moment after the server listens, and a respondent's first upload may
 * be writing its `.tmp` by then (a CI run caught one renamed after the purge removed it, a 500).
 * Incomplete blobs in PostgreSQL keep the usual hour: other nodes may be writing them.
 * @param startedAtMs when this process started (ms since the epoch), before it accepted a request
 * @returns when it is done; never rejects (a failure is logged)
 */
export function purgeIntakeAtStart(deps: PurgeDeps, retentionDays: number, startedAtMs: number): Promise<void> {
  // Only files: this data folder has one server. Blobs in PostgreSQL are shared by every node, and
  // one being written now may be another node's upload (or this one's, timed by a clock that may be
  // a second behind Date.now(), src/clock.ts): those keep the hour's grace period.
  const opts = engineOf(deps.db).blobsInDatabase ? {} : { tmpBeforeMs: startedAtMs - MTIME_SLACK_MS };
  return purgeAndLog(deps, retentionDays, opts).catch((err) => deps.log.error("intake purge failed", { error: String(err) }));
}

/** The hourly purge's task (minute 23), a periodic job of the one scheduler (src/periodic.ts). */
export function intakePurgeTask(deps: PurgeDeps, retentionDays: number): PeriodicTask {
  return { name: "intake-purge", everyMs: 60 * MINUTE_MS, offsetMs: 23 * MINUTE_MS, run: () => purgeAndLog(deps, retentionDays, {}) };
}
