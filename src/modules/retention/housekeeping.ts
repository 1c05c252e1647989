/**
 * @module retention/housekeeping
 * Schedules retention (issue 25; docs/privacy.md "Retention") with the other housekeeping
 * (node-cron, hourly at `RETENTION_CRON`, and once shortly after start). On several nodes the
 * run lease in `settings` lets one node run at a time; the others skip that hour's run.
 */
import type { ScheduledTask } from "node-cron";
import type { Logger } from "../../logger.ts";
import { runRetention, type RetentionDeps } from "./service.ts";

export const RETENTION_CRON = "47 * * * *";

/** Starts the hourly run (and one now, in the background). @returns `stop()`, which waits for a run in progress */
export function startRetentionHousekeeping(deps: RetentionDeps & { log: Logger }): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = runRetention(deps).catch((err) => deps.log.error("retention failed", { error: String(err) }));
    return running;
  };
  run();
  // node-cron loads when the schedules start (after listening), not at every start of the server (bench/startup.ts).
  const cron: typeof import("node-cron") = require("node-cron");
  const task: ScheduledTask = cron.schedule(RETENTION_CRON, () => run(), { name: "retention", noOverlap: true });
  return {
    async stop() {
      await task.destroy();
      await running;
    },
  };
}
