/**
 * @module audit/housekeeping
 * Hourly pruning (node-cron) of audit rows outside any workspace — failed sign-ins with an unknown
 * email, which anyone can cause: kept `UNOWNED_AUDIT_RETENTION_DAYS` days, at most
 * `UNOWNED_AUDIT_MAX_ROWS` rows. Workspace rows are the operators' record and are not pruned.
 */
import type { Kysely } from "kysely";
import { isoAfter } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import type { Logger } from "../../logger.ts";
import { pruneUnownedAudit } from "./repository.ts";

export const UNOWNED_AUDIT_RETENTION_DAYS = 30;
export const UNOWNED_AUDIT_MAX_ROWS = 10_000;
export const AUDIT_PRUNE_CRON = "41 * * * *";

/** Prunes once now. @returns rows deleted */
export function pruneAudit(db: Kysely<Database>): Promise<number> {
  return pruneUnownedAudit(db, isoAfter(-UNOWNED_AUDIT_RETENTION_DAYS * 86_400), UNOWNED_AUDIT_MAX_ROWS);
}

/** Schedules the hourly pruning. @returns `stop()` */
export function startAuditHousekeeping(opts: { db: Kysely<Database>; log: Logger }): { stop(): Promise<void> } {
  // node-cron loads when the schedules start (after listening), not at every start of the server (bench/startup.ts).
  const cron: typeof import("node-cron") = require("node-cron");
  const task = cron.schedule(
    AUDIT_PRUNE_CRON,
    async () => {
      const n = await pruneAudit(opts.db);
      if (n) log(opts.log, n);
    },
    { name: "audit-prune", noOverlap: true },
  );
  task.on("execution:failed", (ctx) => opts.log.error("audit housekeeping failed", { error: String(ctx.execution?.error) }));
  return {
    async stop() {
      await task.destroy();
    },
  };
}

function log(logger: Logger, count: number): void {
  logger.info("pruned audit rows outside any workspace", { count });
}
