/**
 * @module audit/housekeeping
 * Hourly pruning of audit rows outside any workspace — failed sign-ins with an unknown email,
 * which anyone can cause: kept `UNOWNED_AUDIT_RETENTION_DAYS` days, at most
 * `UNOWNED_AUDIT_MAX_ROWS` rows. Workspace rows are the operators' record and are not pruned. Runs
 * as a periodic job of the one scheduler (src/jobs/scheduler.ts, listed in src/periodic.ts).
 */
import type { Kysely } from "kysely";
import { isoAfter } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import type { PeriodicTask } from "../../jobs/scheduler.ts";
import type { Logger } from "../../logger.ts";
import { pruneUnownedAudit } from "./repository.ts";

export const UNOWNED_AUDIT_RETENTION_DAYS = 30;
export const UNOWNED_AUDIT_MAX_ROWS = 10_000;
const MINUTE_MS = 60_000;

/** Prunes once now. @returns rows deleted */
export function pruneAudit(db: Kysely<Database>): Promise<number> {
  return pruneUnownedAudit(db, isoAfter(-UNOWNED_AUDIT_RETENTION_DAYS * 86_400), UNOWNED_AUDIT_MAX_ROWS);
}

/** The pruning's task: every hour, at minute 41. */
export function auditPruneTask(opts: { db: Kysely<Database>; log: Logger }): PeriodicTask {
  return {
    name: "audit-prune",
    everyMs: 60 * MINUTE_MS,
    offsetMs: 41 * MINUTE_MS,
    async run() {
      const count = await pruneAudit(opts.db);
      if (count) opts.log.info("pruned audit rows outside any workspace", { count });
    },
  };
}
