/**
 * @module periodic
 * Every periodic task of `earshot serve`, in one list (issue 23 step 4; docs/architecture.md
 * "Periodic work"): each runs as a durable job queued by the one scheduler (src/jobs/scheduler.ts),
 * once per period per cluster. Hourly, at spread minutes so they do not start together:
 *
 * | task                 | minute | what                                                    |
 * |----------------------|--------|---------------------------------------------------------|
 * | `jobs-prune`         | 11     | finished jobs past their retention (jobs/queue.ts)      |
 * | `delivery-log-prune` | 17     | webhook delivery logs past `EARSHOT_DELIVERY_LOG_RETENTION_DAYS` |
 * | `intake-purge`       | 23     | abandoned intake sessions, orphaned blobs, `.tmp` files |
 * | `audit-prune`        | 41     | audit rows outside any workspace                        |
 * | `retention`          | 47     | the workspaces' retention policies                      |
 *
 * Daily: `digests` at 07:00 UTC queues the members' email digests (modules/digests/task.ts).
 *
 * What is per process by nature stays out: the SQLite WAL checkpointer (per file, db/checkpointer.ts),
 * the usage counters' flush (this process's memory, auth/usage.ts), resuming parked transcriptions
 * once this node's model files appear (jobs/runner.ts), and the start-up purge of this process's
 * `.tmp` files (modules/intake/purge.ts).
 */
import type { AppWiring } from "./app-deps.ts";
import type { PeriodicTask } from "./jobs/scheduler.ts";
import { pruneJobs } from "./jobs/queue.ts";
import type { Logger } from "./logger.ts";
import { auditPruneTask } from "./modules/audit/housekeeping.ts";
import { digestTask } from "./modules/digests/task.ts";
import { intakePurgeTask } from "./modules/intake/purge.ts";
import { retentionTask } from "./modules/retention/housekeeping.ts";
import { pruneDeliveryLogs } from "./outbox/repository.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * The periodic tasks over the app's dependencies.
 * @returns the list the scheduler runs (names unique)
 */
export function periodicTasks(deps: AppWiring["deps"], log: Logger): PeriodicTask[] {
  const { db, blobs, config, clock } = deps;
  return [
    {
      name: "jobs-prune",
      everyMs: HOUR_MS,
      offsetMs: 11 * MINUTE_MS,
      async run() {
        const count = await pruneJobs(db, undefined, clock);
        if (count) log.info("pruned finished jobs", { count });
      },
    },
    {
      name: "delivery-log-prune",
      everyMs: HOUR_MS,
      offsetMs: 17 * MINUTE_MS,
      async run() {
        const count = await pruneDeliveryLogs(db, config.deliveryLogRetentionDays, clock);
        if (count) log.info("pruned webhook delivery logs", { count, retention_days: config.deliveryLogRetentionDays });
      },
    },
    intakePurgeTask({ db, blobs, log, blobsDir: config.blobsDir }, config.sessionRetentionDays),
    auditPruneTask({ db, log }),
    retentionTask({ db, blobs, log, clock }),
    digestTask({
      db,
      config,
      clock,
      log,
      auth: deps.auth,
      publicUrl: config.publicUrl,
      signingSecret: deps.signingSecret,
      audioUrlTtlS: config.audioUrlTtlS,
    }),
  ];
}
