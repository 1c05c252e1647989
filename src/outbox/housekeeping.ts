/**
 * @module outbox/housekeeping
 * Scheduled upkeep of the outbox with node-cron (DESIGN §8): every minute, release delivery
 * leases that expired (a delivery that outlived its lease, or a crash the start-up recovery did
 * not see); every hour, prune delivery logs older than `EARSHOT_DELIVERY_LOG_RETENTION_DAYS`.
 */
import cron, { type ScheduledTask } from "node-cron";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import { pruneDeliveryLogs, releaseLeases } from "./repository.ts";

export const LEASE_SWEEP_CRON = "* * * * *";
export const PRUNE_CRON = "17 * * * *";

export interface Housekeeping {
  /** Stops both tasks (an execution in progress finishes on its own). */
  stop(): Promise<void>;
}

/**
 * Schedules the lease sweep and the log pruning.
 * @param retentionDays finished deliveries older than this many days are deleted
 */
export function startOutboxHousekeeping(opts: { db: Kysely<Database>; log: Logger; retentionDays: number }): Housekeeping {
  const { db, log } = opts;
  const tasks: ScheduledTask[] = [
    cron.schedule(
      LEASE_SWEEP_CRON,
      async () => {
        const n = await releaseLeases(db, true);
        if (n) log.info("released expired webhook delivery leases", { count: n });
      },
      { name: "outbox-lease-sweep", noOverlap: true },
    ),
    cron.schedule(
      PRUNE_CRON,
      async () => {
        const n = await pruneDeliveryLogs(db, opts.retentionDays);
        if (n) log.info("pruned webhook delivery logs", { count: n, retention_days: opts.retentionDays });
      },
      { name: "outbox-prune", noOverlap: true },
    ),
  ];
  for (const t of tasks) t.on("execution:failed", (ctx) => log.error("outbox housekeeping failed", { task: t.name, error: String(ctx.execution?.error) }));
  return {
    async stop() {
      for (const t of tasks) await t.destroy();
    },
  };
}
